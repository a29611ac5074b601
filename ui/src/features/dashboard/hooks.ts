// Every agent's health at a glance (agents_health): the dashboard's table and chart, and the
// agents list's findings badges. The console runs the checks; the screen only asks.
import { useOp } from "../../queries/ops";

export function useAgentsHealth() {
  return useOp("agents_health", {});
}
