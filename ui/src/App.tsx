import { BrokenCheckNotice } from "./features/recall/BrokenCheckNotice";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";

import { BackendProvider, type Backend } from "./backend";
import { Layout } from "./components/Layout";
import { ErrorState, Skeleton } from "./components/States";
import { useGlobalShortcuts } from "./components/shortcuts";
import { AgentPage } from "./features/agents/AgentPage";
import { AgentsPage } from "./features/agents/AgentsPage";
import { DashboardPage } from "./features/dashboard/DashboardPage";
import { FilesPage } from "./features/files/FilesPage";
import { GlobalMemoryPage } from "./features/memory/GlobalMemoryPage";
import { RecallPage } from "./features/recall/RecallPage";
import { SessionPage } from "./features/sessions/SessionPage";
import { SessionsPage } from "./features/sessions/SessionsPage";
import { SettingsPage } from "./features/settings/SettingsPage";
import { WelcomePage } from "./features/settings/WelcomePage";
import { I18nProvider, resolveLang } from "./i18n";
import { useBackendProblemRefresh, useSettings } from "./queries/hooks";
import { useChangeEvents } from "./queries/ops";
import { useRoute, type Route } from "./router";
import { useApplyTheme, useResolvedTheme } from "./theme/theme";

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, staleTime: 5_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

export function AppRoot({ backend, queryClient }: { backend: Backend; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <BackendProvider backend={backend}>
      <QueryClientProvider client={client}>
        <Shell />
      </QueryClientProvider>
    </BackendProvider>
  );
}

function Shell() {
  const settings = useSettings();
  useChangeEvents();
  useBackendProblemRefresh();
  useGlobalShortcuts();
  const lang = resolveLang(settings.data?.settings.language);
  const theme = useResolvedTheme(settings.data?.settings.theme);
  useApplyTheme(theme);
  const route = useRoute();

  let body;
  if (settings.data === undefined) {
    body = settings.isError ? (
      <div className="center-page">
        <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
      </div>
    ) : (
      <Layout route={route} view={undefined}>
        <div className="page">
          <Skeleton rows={8} />
        </div>
      </Layout>
    );
  } else if (settings.data.effective.first_run && route.page !== "settings") {
    body = <WelcomePage view={settings.data} />;
  } else {
    body = (
      <Layout route={route} view={settings.data}>
        <Page route={route} />
        <BrokenCheckNotice />
      </Layout>
    );
  }
  return <I18nProvider lang={lang}>{body}</I18nProvider>;
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "agents":
      return <AgentsPage />;
    case "agent":
      return <AgentPage key={route.name} name={route.name} tab={route.tab} />;
    case "global":
      return <GlobalMemoryPage tab={route.tab ?? "memory"} />;
    case "sessions":
      return <SessionsPage filter={route} />;
    case "session":
      return <SessionPage key={route.id} id={route.id} focus={route.m} why={route.why} />;
    case "files":
      return <FilesPage name={route.name} />;
    case "recall":
      return <RecallPage filter={route} />;
    case "dashboard":
      return <DashboardPage days={route.days} />;
    case "settings":
      return <SettingsPage focus={route.focus} />;
  }
}
