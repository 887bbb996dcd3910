/**
 * The import status page (spec 3.1): the server's jobs, newest first, rendered on the server;
 * a small inline script (no framework) polls the JSON API every second, keeps the list current,
 * shows the step checklist of a running job and, once it ends, the per-endpoint diff from the
 * job's import report. Everything shown is escaped (hono/html on the server, textContent in the
 * browser). The inline style and script carry the response's CSP nonce (control-app.ts sets the
 * policy); state-changing forms carry a CSRF token.
 */
import { html, raw } from 'hono/html';
import type { RuntimeStats } from './runtime-stats.js';
import type { ServerRow } from './store/control-store.js';

interface JobView {
  jobId: string;
  status: string;
  trigger: string;
  createdAt: string;
  finishedAt: string | null;
  commit?: string;
  summary?: string;
  error?: string;
  failedStep?: string;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:60rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
.Pending{color:#8a6d00}.Processing{color:#0a58ca}.Complete{color:#146c43}.Failed{color:#b02a37}
code{font-size:12px}ul.checklist{list-style:none;padding:0}ul.checklist li::before{content:attr(data-mark) " ";}
pre{white-space:pre-wrap;background:#f6f8fa;padding:.75rem}`;

/** What every page needs from the request: the CSP nonce and, for a signed-in page, the CSRF token. */
export interface PageContext {
  nonce: string;
  /** The CSRF token of the sign-in or of the session (sign-out form). */
  csrf?: string;
}

const signOut = (page: PageContext) =>
  page.csrf
    ? html`<form method="post" action="/logout" id="logout"><input type="hidden" name="csrf" value="${page.csrf}"><button type="submit">Sign out</button></form>`
    : '';

// Job ids are UUIDv7: their first characters are the time, shared by jobs queued together, so
// the whole id is shown.
function jobRow(job: JobView) {
  return html`<tr data-job-id="${job.jobId}" data-status="${job.status}">
<td><a href="?job=${job.jobId}"><code>${job.jobId}</code></a></td><td class="${job.status}">${job.status}</td>
<td>${job.trigger}</td><td>${job.createdAt}</td><td>${job.finishedAt ?? ''}</td>
<td>${job.commit ? html`<code>${job.commit.slice(0, 7)}</code>` : ''}</td><td>${job.summary ?? job.error ?? ''}</td></tr>`;
}

export interface RuntimeView {
  runtimeId: string;
  commit: string;
  status: number;
  at: string;
}

function runtimeRow(r: RuntimeView) {
  return html`<tr data-runtime-id="${r.runtimeId}"><td><code>${r.runtimeId}</code></td><td><code>${r.commit.slice(0, 12)}</code></td><td>${r.at}</td><td>${r.status === 304 ? 'unchanged' : 'fetched'}</td></tr>`;
}

export function renderStatusPage(
  server: ServerRow,
  jobs: JobView[],
  page: PageContext,
  runtimes: RuntimeView[] = [],
): string {
  const api = `/v1/servers/${encodeURIComponent(server.id)}/imports`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Imports · ${server.id}</title><style nonce="${page.nonce}">${raw(STYLE)}</style></head>
<body>${signOut(page)}
<p><a href="/servers">All servers</a></p>
<h1>Imports of <code>${server.id}</code></h1>
<p>${server.repository} · branch <code>${server.branch}</code> · folder <code>${server.path}</code></p>
<table><thead><tr><th>Job</th><th>Status</th><th>Trigger</th><th>Queued</th><th>Finished</th><th>Commit</th><th>Summary</th></tr></thead>
<tbody id="jobs">${jobs.length ? jobs.map(jobRow) : html`<tr><td colspan="7">No import yet.</td></tr>`}</tbody></table>
<h2>Runtimes</h2>
<table id="runtimes"><thead><tr><th>Runtime</th><th>Commit</th><th>Last poll</th><th>Snapshot</th></tr></thead>
<tbody>${runtimes.length ? runtimes.map(runtimeRow) : html`<tr><td colspan="4">No runtime has polled since this service started.</td></tr>`}</tbody></table>
<section id="job" data-status=""><h2 id="job-title"></h2><ul class="checklist" id="steps"></ul><ul class="checklist" id="rows"></ul>
<div id="diff"></div></section>
<script type="module" nonce="${page.nonce}">
const api = ${raw(JSON.stringify(api))};
const $ = (id) => document.getElementById(id);
const el = (tag, text, attrs = {}) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); return e; };
const MARK = { pending: '○', processing: '◐', complete: '●', failed: '✗', skipped: '–' };
let shownReportFor = '';
function renderList(jobs) {
  const body = $('jobs'); body.replaceChildren();
  if (!jobs.length) { const tr = el('tr'); tr.append(el('td', 'No import yet.', { colspan: '7' })); body.append(tr); return; }
  for (const j of jobs) {
    const tr = el('tr', undefined, { 'data-job-id': j.jobId, 'data-status': j.status });
    const link = el('a', undefined, { href: '?job=' + j.jobId }); link.append(el('code', j.jobId));
    const cells = [link, el('span', j.status, { class: j.status }), j.trigger, j.createdAt, j.finishedAt ?? '', j.commit ? el('code', j.commit.slice(0, 7)) : '', j.summary ?? j.error ?? ''];
    for (const c of cells) { const td = el('td'); td.append(c); tr.append(td); }
    body.append(tr);
  }
}
function renderChecklist(job) {
  const steps = $('steps'); steps.replaceChildren();
  for (const s of job.progress?.steps ?? []) steps.append(el('li', s.step + (s.detail ? ': ' + s.detail : ''), { 'data-step': s.step, 'data-state': s.status, 'data-mark': MARK[s.status] ?? '' }));
  const rows = $('rows'); rows.replaceChildren();
  for (const r of job.progress?.checklist ?? []) rows.append(el('li', r.label + (r.count !== undefined ? ' (' + r.count + ')' : '') + (r.error ? ': ' + r.error : ''), { 'data-kind': r.kind, 'data-state': r.status, 'data-mark': MARK[r.status] ?? '' }));
}
async function renderDiff(job) {
  if (shownReportFor === job.jobId) return;
  shownReportFor = job.jobId;
  const detail = await (await fetch(api + '/' + job.jobId, { credentials: 'same-origin' })).json();
  const diff = $('diff'); diff.replaceChildren();
  if (job.error) diff.append(el('p', 'Failed at ' + (job.failedStep ?? '?') + ': ' + job.error, { class: 'Failed' }));
  const endpoints = detail.report?.endpoints ?? [];
  diff.append(el('h3', endpoints.length ? 'Endpoint changes' : 'No endpoint changed'));
  if (endpoints.length) {
    const table = el('table', undefined, { id: 'endpoints' });
    const head = el('tr'); for (const h of ['Endpoint', 'Change', 'Breaking', 'Details']) head.append(el('th', h)); table.append(head);
    for (const e of endpoints) {
      const tr = el('tr', undefined, { 'data-endpoint': e.key, 'data-kind': e.kind });
      for (const t of [e.key, e.kind, e.breaking ? 'breaking' : '', (e.changes ?? []).map((c) => c.text).join('; ')]) tr.append(el('td', t));
      table.append(tr);
    }
    diff.append(table);
  }
  if (detail.markdown) { const d = el('details'); d.append(el('summary', 'Full report (Markdown)'), el('pre', detail.markdown)); diff.append(d); }
}
async function tick() {
  try {
    const response = await fetch(api, { credentials: 'same-origin' });
    if (response.ok) {
      const jobs = await response.json();
      renderList(jobs);
      const wanted = new URLSearchParams(location.search).get('job');
      const job = jobs.find((j) => j.jobId === wanted) ?? jobs[0];
      if (job) {
        $('job').dataset.status = job.status; $('job').dataset.jobId = job.jobId;
        $('job-title').textContent = 'Job ' + job.jobId + ': ' + job.status;
        renderChecklist(job);
        if (job.status === 'Complete' || job.status === 'Failed') await renderDiff(job); else { shownReportFor = ''; $('diff').replaceChildren(); }
      }
    }
  } finally { setTimeout(tick, 1000); }
}
tick();
</script>
</body></html>`.toString();
}

/** The registered servers, each linking to its status page: where a sign-in lands by default. */
/** Calls, errors and p95 per server over the last hour, from Prometheus (when configured). */
function statsPanel(stats: RuntimeStats | undefined) {
  if (!stats) return '';
  const body = !stats.ok
    ? html`<tr><td colspan="4">Prometheus cannot be read: ${stats.reason}</td></tr>`
    : stats.servers.length === 0
      ? html`<tr><td colspan="4">No runtime has reported a call in the last hour.</td></tr>`
      : stats.servers.map(
          (s) =>
            html`<tr data-runtime-server="${s.server}"><td><code>${s.server}</code></td><td>${Math.round(s.calls)}</td><td>${Math.round(s.errors)}${
              s.calls > 0 ? ` (${((100 * s.errors) / s.calls).toFixed(1)}%)` : ''
            }</td><td>${Number.isFinite(s.p95) ? `${Math.round(s.p95 * 1000)} ms` : '–'}</td></tr>`,
        );
  return html`<h2>Runtimes, last hour</h2>
<table><thead><tr><th>Server</th><th>Calls</th><th>Errors</th><th>p95</th></tr></thead><tbody id="runtime-stats">${body}</tbody></table>`;
}

export function renderServersPage(servers: ServerRow[], page: PageContext, stats?: RuntimeStats): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc control · servers</title><style nonce="${page.nonce}">${raw(STYLE)}</style></head>
<body>${signOut(page)}<h1>Servers</h1>
<table><thead><tr><th>Server</th><th>Repository</th><th>Branch</th><th>Folder</th></tr></thead><tbody id="servers">
${
  servers.length
    ? servers.map(
        (s) =>
          html`<tr data-server-id="${s.id}"><td><a href="/servers/${encodeURIComponent(s.id)}/imports"><code>${s.id}</code></a></td><td>${s.repository}</td><td><code>${s.branch}</code></td><td><code>${s.path}</code></td></tr>`,
      )
    : html`<tr><td colspan="4">No server is registered yet (POST /v1/servers).</td></tr>`
}</tbody></table>${statsPanel(stats)}</body></html>`.toString();
}

/** The sign-in form; `page.csrf` is the value of the sign-in CSRF cookie set with it. */
export function renderLoginPage(next: string, page: PageContext, error?: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc control · sign in</title><style nonce="${page.nonce}">${raw(STYLE)}</style></head>
<body><h1>svc control</h1>${error ? html`<p class="Failed" role="alert">${error}</p>` : ''}
<form method="post" action="/login"><label>Workspace token <input name="token" type="password" autocomplete="off" required></label>
<input type="hidden" name="next" value="${next}"><input type="hidden" name="csrf" value="${page.csrf ?? ''}"><button type="submit">Sign in</button></form></body></html>`.toString();
}
