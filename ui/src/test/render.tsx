import { QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";

import { AppRoot } from "../App";
import { createFakeBackend, type FakeOptions } from "../backend/fake";

export function renderApp(hash: string, opts: FakeOptions = {}) {
  window.location.hash = hash;
  const backend = createFakeBackend({ language: "en", ...opts });
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: 0, refetchOnWindowFocus: false }, mutations: { retry: false } },
  });
  const utils = render(<AppRoot backend={backend} queryClient={queryClient} />);
  return { ...utils, backend, queryClient };
}
