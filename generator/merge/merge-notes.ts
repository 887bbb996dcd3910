import type { ContentChange, CustomizationReset, ToolRef } from '../../schemas/types.js';

/** What the merge decided, as data; the report turns notes into sections and warnings. */
export type MergeNote =
  | { kind: 'tool-added'; tool: ToolRef }
  | { kind: 'tool-removed'; tool: ToolRef }
  | { kind: 'tool-stale'; tool: ToolRef; reason: string }
  | { kind: 'tool-renamed-unique'; tool: ToolRef; wanted: string }
  | { kind: 'customization-reset'; reset: CustomizationReset }
  | { kind: 'customization-kept'; kept: CustomizationReset }
  | { kind: 'content'; change: ContentChange };
