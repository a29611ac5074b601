// Console operations as TanStack queries and mutations, by name. A query's key is its operation
// and arguments; which change events make it stale is the registry's `reads` (OP_READS in the
// generated bindings), so a new operation needs nothing here.
import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type UseMutationOptions,
  type UseQueryOptions,
} from "@tanstack/react-query";
import { useEffect } from "react";

import { useBackend, type ChangeEvent, type ChangeKind } from "../backend";
import type { OpArgs, OpName, OpResult } from "../backend/client";
import { OP_READS } from "../bindings";

/** The key of `op(args)` (what useOp uses: for setQueryData, getQueryData, invalidateQueries). */
export function opKey<K extends OpName>(op: K, args: OpArgs<K>): readonly unknown[] {
  return [op, args];
}

/** The key of a query computed from `op`'s answers (several pages, a search): the same change
 * events make it stale as `op` with `args` (its agent argument, say). */
export function derivedKey<K extends OpName>(op: K, args: Partial<OpArgs<K>>, ...extra: unknown[]): readonly unknown[] {
  return [op, args, ...extra];
}

/** The agent an argument names: absent, null or empty is the global memory (null). */
function agentArg(args: unknown, field: string): string | null {
  const v = typeof args === "object" && args !== null ? (args as Record<string, unknown>)[field] : undefined;
  return typeof v === "string" && v !== "" ? v : null;
}

/** A change: its kind and agent; `agent` undefined stands for every owner at once (an import). */
export type Change = { kind: ChangeKind; agent: string | null | undefined };

/** Whether `change` makes the answer of `op(args)` stale, by the registry's `reads`. Every answer
 * follows the settings (the root, the backend, the modes may all have changed). */
export function staleAfter(op: string, args: unknown, change: Change): boolean {
  if (change.kind === "settings") return true;
  const reads: Partial<Record<ChangeKind, string>> | undefined = (OP_READS as Record<string, Partial<Record<ChangeKind, string>>>)[op];
  const scope = reads?.[change.kind];
  if (scope === undefined) return false;
  if (scope === "*" || change.agent === undefined) return true;
  const [field, global] = scope.split("+");
  return agentArg(args, field!) === change.agent || (global === "global" && change.agent === null);
}

/** Refetches the queries `change` makes stale (all of them after a settings change). */
export function invalidateFor(qc: QueryClient, change: Change | ChangeEvent): Promise<void> {
  if (change.kind === "settings") return qc.invalidateQueries();
  return qc.invalidateQueries({
    predicate: (q) => {
      const [op, args] = q.queryKey;
      return typeof op === "string" && q.meta?.followChanges !== false && staleAfter(op, args, change);
    },
  });
}

/** Live refresh: each change event refetches the queries it makes stale. */
export function useChangeEvents() {
  const b = useBackend();
  const qc = useQueryClient();
  useEffect(
    () =>
      b.onChange((e: ChangeEvent) => {
        void invalidateFor(qc, e);
      }),
    [b, qc],
  );
}

export type OpQueryOptions<K extends OpName, T> = Omit<UseQueryOptions<OpResult<K>, Error, T>, "queryKey" | "queryFn"> & {
  /** false: asked afresh each time it is shown (a confirmation's figures), not refetched by a
   * change event (the change it confirms must not ask again); a settings change still does. */
  followChanges?: boolean;
};

/** `op(args)` as a query, keyed `[op, args]` and refetched by the changes the registry says it
 * reads. */
export function useOp<K extends OpName, T = OpResult<K>>(op: K, args: OpArgs<K>, opts?: OpQueryOptions<K, T>) {
  const { call } = useBackend();
  const { followChanges, ...rest } = opts ?? {};
  return useQuery({
    ...rest,
    queryKey: opKey(op, args),
    queryFn: () => call(op, args),
    meta: followChanges === false ? { ...rest.meta, followChanges: false } : rest.meta,
  });
}

/** `op` as a mutation taking its arguments. What it changed reaches the screens as the change
 * event the console announces; `onSuccess` may refresh at once (invalidateFor) to wait for it. */
export function useOpMutation<K extends OpName, C = unknown>(op: K, opts?: Omit<UseMutationOptions<OpResult<K>, Error, OpArgs<K>, C>, "mutationFn">) {
  const { call } = useBackend();
  return useMutation({ ...opts, mutationFn: (args: OpArgs<K>) => call(op, args) });
}
