export { canonicalContentPath, type ParseContentResult, parseContent } from './parse-content.js';
