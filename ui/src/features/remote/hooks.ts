// The remote console's server calls (#11 item 8): every one goes through these hooks. Only the
// desktop has `backend.remote`; in the browser (`oryx serve`'s own UI) there is nothing to connect
// to and the feature is hidden.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { RemoteConnections } from "../../backend/backend";
import type { ConnectionDto, ConnectRequest } from "../../backend/types";

/** Not a console operation (the desktop's own command): a settings change refreshes it, as it does
 * every query. */
const CONNECTION_KEY = ["connection"] as const;

/** The desktop's connections, or undefined where there are none (the browser). */
export function useRemoteConnections(): RemoteConnections | undefined {
  return useBackend().remote;
}

/** Which console the window shows and the servers remembered (never asked without `remote`). */
export function useConnection() {
  const remote = useRemoteConnections();
  return useQuery({
    queryKey: CONNECTION_KEY,
    queryFn: () => remote!.connection(),
    enabled: remote !== undefined,
  });
}

/** A write that answers the connection: its answer is shown at once, then asked again. (Connect
 * and disconnect also make the console announce a `settings` change, which refreshes every view.) */
function useConnectionWrite<A>(call: (remote: RemoteConnections, args: A) => Promise<ConnectionDto>) {
  const remote = useRemoteConnections();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (args: A) => call(remote!, args),
    onSuccess: async (c) => {
      qc.setQueryData(CONNECTION_KEY, c);
      await qc.invalidateQueries({ queryKey: CONNECTION_KEY });
    },
  });
}

/** What the server at an address is (no token sent). */
export function useProbeServer() {
  const remote = useRemoteConnections();
  return useMutation({ mutationFn: (url: string) => remote!.probeServer(url) });
}

export function useConnectServer() {
  return useConnectionWrite((r, req: ConnectRequest) => r.connectServer(req));
}

export function useDisconnectServer() {
  return useConnectionWrite((r, _: void) => r.disconnectServer());
}

export function useForgetServer() {
  return useConnectionWrite((r, url: string) => r.forgetServer(url));
}
