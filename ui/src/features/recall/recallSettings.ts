// The runtime's configuration keys of the recall settings, and the values that differ between
// two settings, as set_runtime_value(s) take them.
import type { RecallSettingsDto } from "../../backend/types";

export const RECALL_SETTING_KEYS: Record<keyof RecallSettingsDto, string> = {
  semantic: "memory.recall.weight.semantic",
  keyword: "memory.recall.weight.keyword",
  recency: "memory.recall.weight.recency",
  topK: "memory.recall.top-k",
};

export const RECALL_SETTING_FIELDS = Object.keys(RECALL_SETTING_KEYS) as (keyof RecallSettingsDto)[];

/** `to`'s values that differ from `from`, keyed as the runtime's configuration names them. */
export function changedRuntimeValues(to: RecallSettingsDto, from: RecallSettingsDto): { key: string; value: string }[] {
  return RECALL_SETTING_FIELDS.filter((k) => to[k] !== from[k]).map((k) => ({ key: RECALL_SETTING_KEYS[k], value: String(to[k]) }));
}
