/** Moved to core/ (the control service's command has the same shape). */
export type { CliIo, Command } from '../core/command.js';
