// The charts' reads (memory_stats is the health feature's read too: one cache for both).
import { useOp } from "../../queries/ops";

/** Characters per prompt part for the agent's most recent sessions (the console's default count). */
export function usePromptComposition(agent: string) {
  return useOp("prompt_composition", { agent });
}

/** Sessions per day and agent over the last `days` days. */
export function useSessionsPerDay(days: number) {
  // Without a count the console uses its default: the argument is left out.
  return useOp("sessions_per_day", days ? { days } : {}, { placeholderData: (prev) => prev });
}
