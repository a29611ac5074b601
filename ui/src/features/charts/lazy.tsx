// The chart library is loaded with the first chart shown (its own chunk), not with the app. A chunk
// that cannot be loaded (the console was updated while the page stayed open) costs that chart
// only: its place says so, with Retry, and the rest of the page stays.
import { Component, lazy, Suspense, useState, type ComponentType, type ReactNode } from "react";

import { ErrorState, Skeleton } from "../../components/States";

class ChartBoundary extends Component<{ children: ReactNode; onRetry: () => void }, { error: unknown }> {
  state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  render() {
    if (this.state.error === null) return this.props.children;
    return (
      <ErrorState
        error={this.state.error}
        compact
        onRetry={this.props.onRetry}
      />
    );
  }
}

export function lazyChart<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  // A failed import is remembered by React.lazy: Retry makes a new one.
  const make = () => lazy(() => load().then((c) => ({ default: c }))) as unknown as ComponentType<P>;
  let Chart = make();
  return function LazyChart(props: P) {
    // Retry: a new import, and a new boundary (without the error) around it.
    const [attempt, setAttempt] = useState(0);
    return (
      <ChartBoundary
        key={attempt}
        onRetry={() => {
          Chart = make();
          setAttempt((a) => a + 1);
        }}
      >
        <Suspense fallback={<Skeleton rows={5} />}>
          <Chart {...props} />
        </Suspense>
      </ChartBoundary>
    );
  };
}

export const GrowthChart = lazyChart(() => import("./MemoryCharts").then((m) => m.GrowthChart));
export const ReachChart = lazyChart(() => import("./MemoryCharts").then((m) => m.ReachChart));
export const CompositionChart = lazyChart(() => import("./MemoryCharts").then((m) => m.CompositionChart));
export const SessionsChart = lazyChart(() => import("./SessionsChart").then((m) => m.SessionsChart));
