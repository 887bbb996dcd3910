export type * from './types.js';
export {
  describeAjvErrors,
  formatViolations,
  type SchemaName,
  type SchemaTypes,
  type SchemaViolation,
  schemaId,
  type Validation,
  validate,
  validatorFor,
} from './validate.js';
