/**
 * Which events may hand the source-token input to check and merge modes. Those modes re-import from the
 * checked-out config.yaml as it is; on a pull request's events (pull_request_target, issue_comment,
 * pull_request_review, workflow_run, …) that can be the pull request's own, which could point the source at
 * a host of its author's and collect the token. An allow-list, so that an event GitHub adds later is refused
 * until someone decides otherwise. pull_request mode has its own rule (the source must match the base).
 */
const BASE_CODE_EVENTS: ReadonlySet<string> = new Set([
  'push',
  'schedule',
  'workflow_dispatch',
  'repository_dispatch',
  'merge_group',
]);

/** Whether an event (GITHUB_EVENT_NAME) runs only code that is already on a branch of the repository. */
export function sourceTokenAllowedOn(eventName: string): boolean {
  return BASE_CODE_EVENTS.has(eventName);
}

/** Why the token is withheld on `eventName`, and what to do instead (for the credential error's hint). */
export function withheldOnEvent(eventName: string): string {
  const event = eventName ? `the ${eventName} event` : 'a run without GITHUB_EVENT_NAME';
  return `withheld here: ${event} can check out a pull request's config.yaml, which could point the source at another host; run this mode on ${[...BASE_CODE_EVENTS].join(', ')}, or use mode: pull_request, which sends it only to a source unchanged from the base branch`;
}
