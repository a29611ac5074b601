// Agent management: the queries and the helpers the create dialog, the editor, the skills picker
// and the archive share. Every answer (validity, conflicts) is the console's.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";

import { BackendError } from "../../backend";
import type { FieldErrorDto } from "../../backend/types";
import { invalidateFor } from "../../queries/ops";

/** The hint shown under a name field; the console's answer is what counts. */
export const NAME_HINT = "[A-Za-z0-9_-]{1,64}";
export const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** After any agent write, at once (not waiting for its change event): whatever reads the agents
 * (the list, the details, the AGENT.md texts, the archive, the prompts). */
export function invalidateAgentWrites(qc: QueryClient): Promise<unknown> {
  return invalidateFor(qc, { kind: "agents", agent: null });
}

export function useInvalidateAgents() {
  const qc = useQueryClient();
  return () => invalidateAgentWrites(qc);
}

/** A form value as the YAML value text `set_agent_key` takes: strings JSON-quoted (a valid YAML
 * scalar whatever they contain), numbers as their text, empty → `null` (removes the key). */
export function yamlValue(v: string, kind: "string" | "number"): string {
  const s = v.trim();
  if (s === "") return "null";
  return kind === "number" ? s : JSON.stringify(v);
}

/** Field errors by key (`provider.model`); "" holds the errors about the whole text. */
export function errorsByKey(errors: readonly FieldErrorDto[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const e of errors) m.set(e.key, [...(m.get(e.key) ?? []), e.message]);
  return m;
}

export function isConflict(e: unknown): boolean {
  return e instanceof BackendError && e.code === "conflict";
}
