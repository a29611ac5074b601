// The charts' reads (memory_stats comes from the health feature's useStats: one cache for both).
import { useQuery } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import { qk } from "../../queries/keys";

/** Characters per prompt part for the agent's most recent sessions (the console's default count). */
export function usePromptComposition(agent: string) {
  const b = useBackend();
  return useQuery({ queryKey: qk.promptComposition(agent), queryFn: () => b.promptComposition(agent) });
}

/** Sessions per day and agent over the last `days` days. */
export function useSessionsPerDay(days: number) {
  const b = useBackend();
  return useQuery({ queryKey: qk.sessionsPerDay(days), queryFn: () => b.sessionsPerDay(days), placeholderData: (prev) => prev });
}
