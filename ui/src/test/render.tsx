import { QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";

import { AppRoot } from "../App";
import { createRecordedBackend, type RecordedBackend, type StateName } from "./recorded";

const rendered: RecordedBackend[] = [];

/** The app on the recorded console in `state` (the demo root, configured, in English). */
export function renderApp(hash: string, state: StateName = "demo") {
  window.location.hash = hash;
  const backend = createRecordedBackend(state);
  // agents_health (the agents list's findings badges, the dashboard) was never recorded: no
  // findings unless a test stubs its own answer.
  backend.stub("agents_health", () => []);
  // session_memory_links (the session view's "Saved to memory" badges) is not in the recording
  // yet: no links unless a test stubs its own answer.
  backend.stub("session_memory_links", () => []);
  // superseded_counts (the dashboard's superseded card) needs the embedding model: not recorded;
  // none unless a test stubs its own answer.
  backend.stub("superseded_counts", () => []);
  // recall_checks (the Recall page's checks) is not recorded: none unless a test stubs its own.
  backend.stub("recall_checks", (args) => ({ agent: (args as { agent: string | null }).agent, checks: [], passed: 0, failed: 0, ran: 0, settings: null }));
  rendered.push(backend);
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: 0, refetchOnWindowFocus: false }, mutations: { retry: false } },
  });
  const utils = render(<AppRoot backend={backend} queryClient={queryClient} />);
  return { ...utils, backend, queryClient };
}

/** The requests a test sent that were never recorded: each one is a missing fixture. */
export function takeMisses(): string[] {
  const misses = rendered.flatMap((b) => b.misses);
  rendered.length = 0;
  return misses;
}
