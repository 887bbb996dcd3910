export { buildReport, ENABLED_TOOL_HITS, type FailOn, type ReportInput, reportHits } from './build-report.js';
export { renderReportMarkdown } from './render-markdown.js';
export { renderReportText } from './render-text.js';
