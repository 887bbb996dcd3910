/** `svc control`: the command lives with the service (the image runs it without the CLI). */
export { controlCommand } from '../../control/control-command.js';
