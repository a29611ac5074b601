// Every agent's health at a glance (agents_health): the dashboard's table and chart, and the
// agents list's findings badges. The console runs the checks; the screen only asks.
import { useQuery } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import { qk } from "../../queries/keys";

export function useAgentsHealth() {
  const b = useBackend();
  return useQuery({ queryKey: qk.agentsHealth, queryFn: () => b.agentsHealth() });
}
