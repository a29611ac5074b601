// Settings → "Connect to a server" (#11 item 8): which console this window shows, the servers it
// remembers, and a form that checks an address before connecting (the certificate's fingerprint
// compared by the person when no authority vouches for it). The desktop only.
import { useEffect, useId, useImperativeHandle, useRef, useState, type RefObject } from "react";

import type { ConnectionDto, ErrorCode, RememberedServerDto, ServerProbeDto } from "../../backend/types";
import { FieldError } from "../../components/FieldError";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { fingerprintGroups, sameFingerprint, shortFingerprint } from "./fingerprint";
import { useConnection, useConnectServer, useDisconnectServer, useForgetServer, useProbeServer, useRemoteConnections } from "./hooks";
import "./remote.css";

type Override = Partial<Record<ErrorCode, MessageKey>>;

/** What a failed Check means, in the user's words. */
const PROBE_ERRORS: Override = { invalid_input: "remote.error.address", backend_unavailable: "remote.error.unreachable", timeout: "remote.error.timeout" };

/** What a failed Connect means, by the console's code. */
const CONNECT_ERRORS: Override = {
  invalid_input: "remote.error.address",
  unauthorized: "remote.error.tokenRefused",
  untrusted_certificate: "remote.error.certificate",
  backend_unavailable: "remote.error.unreachable",
  timeout: "remote.error.timeout",
};

const STORE_HINT: Record<string, MessageKey> = {
  secret_service: "remote.store.secret_service",
  kernel: "remote.store.kernel",
  none: "remote.store.none",
};

/** The section, where the desktop can connect (nothing in the browser). */
export function ConnectServer() {
  const remote = useRemoteConnections();
  if (!remote) return null;
  return <ConnectServerSection />;
}

function ConnectServerSection() {
  const { t } = useI18n();
  const q = useConnection();
  return (
    <section className="card form-section remote-section" aria-labelledby="remote-title" data-testid="remote-section">
      <h2 id="remote-title" className="field-label-lg">
        {t("remote.title")}
      </h2>
      <div className="field-hint">{t("remote.hint")}</div>
      {q.data ? (
        <ConnectionView c={q.data} />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} compact />
      ) : (
        <Skeleton rows={3} />
      )}
    </section>
  );
}

function ConnectionView({ c }: { c: ConnectionDto }) {
  const { t } = useI18n();
  const disconnect = useDisconnectServer();
  const form = useRef<FormHandle>(null);
  const r = c.remote;
  return (
    <>
      <div className="remote-shown" data-testid="remote-shown">
        <span className="remote-shown-label">{t("remote.shown")}</span>
        {r ? (
          <span className="remote-shown-what" data-testid="remote-shown-remote">
            <Icon name="globe" size={14} />
            <strong>{r.host}</strong>
            <span aria-hidden="true">—</span>
            <code className="remote-root" title={r.root}>
              {r.root}
            </code>
            <span className="tag tag-muted">{r.backend}</span>
          </span>
        ) : (
          <span className="remote-shown-what" data-testid="remote-shown-local">
            {t("remote.thisComputer")}
          </span>
        )}
        {r ? (
          <button type="button" className="btn btn-small" disabled={disconnect.isPending} onClick={() => disconnect.mutate()} data-testid="remote-disconnect">
            {disconnect.isPending ? t("remote.disconnecting") : t("remote.disconnect")}
          </button>
        ) : null}
      </div>
      {disconnect.isError ? <FieldError id="remote-disconnect-error" error={disconnect.error} testId="remote-disconnect-error" /> : null}
      {c.servers.length ? <ServerList c={c} onFill={(url) => form.current?.fill(url)} /> : null}
      <ConnectForm c={c} handle={form} />
    </>
  );
}

function ServerList({ c, onFill }: { c: ConnectionDto; onFill: (url: string) => void }) {
  const { t } = useI18n();
  return (
    <div className="remote-servers">
      <h3 className="subsection-title" id="remote-servers-title">
        {t("remote.servers")}
      </h3>
      <ul aria-labelledby="remote-servers-title" data-testid="remote-servers">
        {c.servers.map((s) => (
          <ServerRow key={s.url} s={s} shown={c.remote?.url === s.url} onFill={onFill} />
        ))}
      </ul>
    </div>
  );
}

function useWhen() {
  const { lang } = useI18n();
  const fmt = new Intl.DateTimeFormat(lang === "zh" ? "zh-CN" : "en-US", { dateStyle: "medium", timeStyle: "short" });
  return (rfc3339: string) => {
    const d = new Date(rfc3339);
    return Number.isNaN(d.getTime()) ? rfc3339 : fmt.format(d);
  };
}

function ServerRow({ s, shown, onFill }: { s: RememberedServerDto; shown: boolean; onFill: (url: string) => void }) {
  const { t } = useI18n();
  const when = useWhen();
  const connect = useConnectServer();
  const forget = useForgetServer();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const errorId = useId();
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const failed = connect.isError ? connect.error : forget.isError ? forget.error : null;
  return (
    <li className="remote-server" data-testid="remote-server" data-url={s.url}>
      <div className="remote-server-main">
        <div className="remote-server-head">
          <strong title={s.url} data-testid="remote-server-host">
            {s.host}
          </strong>
          {shown ? <span className="tag tag-accent-soft">{t("remote.shownTag")}</span> : null}
          {s.has_token ? (
            <span className="tag tag-ok" data-testid="remote-server-token">
              <Icon name="check" size={12} /> {t("remote.tokenSaved")}
            </span>
          ) : null}
        </div>
        <div className="remote-server-meta">
          <span>{s.last_connected ? t("remote.lastConnected", { when: when(s.last_connected) }) : t("remote.neverConnected")}</span>
          {s.fingerprint ? (
            <span className="mono" title={s.fingerprint} data-testid="remote-server-fingerprint">
              <span className="sr-only">{t("remote.fingerprint")} </span>
              {shortFingerprint(s.fingerprint)}
            </span>
          ) : null}
        </div>
      </div>
      {confirming ? (
        <div className="remote-server-actions" role="group" aria-label={t("remote.forgetConfirm", { host: s.host })}>
          <span className="remote-confirm-text">{t("remote.forgetConfirm", { host: s.host })}</span>
          <button
            ref={confirmRef}
            type="button"
            className="btn btn-small btn-danger"
            disabled={forget.isPending}
            onClick={() => forget.mutate(s.url, { onSettled: () => setConfirming(false) })}
            data-testid="remote-server-forget-yes"
          >
            {t("remote.forget")}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setConfirming(false)} data-testid="remote-server-forget-no">
            {t("remote.cancel")}
          </button>
        </div>
      ) : (
        <div className="remote-server-actions">
          <ConnectRemembered s={s} shown={shown} connect={connect} onFill={onFill} describedBy={failed ? errorId : undefined} />
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setConfirming(true)} data-testid="remote-server-forget">
            {t("remote.forget")}
          </button>
        </div>
      )}
      {failed ? (
        <div className="remote-server-error">
          <FieldError id={errorId} error={failed} override={connect.isError ? CONNECT_ERRORS : undefined} testId="remote-server-error" />
        </div>
      ) : null}
    </li>
  );
}

/** One click for a server whose token is saved; otherwise the form below is filled in and the
 * address checked (the token and, if need be, the fingerprint are asked there). */
function ConnectRemembered({
  s,
  shown,
  connect,
  onFill,
  describedBy,
}: {
  s: RememberedServerDto;
  shown: boolean;
  connect: ReturnType<typeof useConnectServer>;
  onFill: (url: string) => void;
  describedBy?: string;
}) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      className="btn btn-small"
      disabled={shown || connect.isPending}
      aria-describedby={describedBy}
      onClick={() => {
        if (s.has_token) connect.mutate({ url: s.url, token: null, fingerprint: null, remember: true });
        else onFill(s.url);
      }}
      data-testid="remote-server-connect"
    >
      {connect.isPending ? t("remote.connecting") : s.has_token ? t("remote.connect") : t("remote.connectWithToken")}
    </button>
  );
}

/** What a remembered server without a saved token asks of the form: its address, checked. */
type FormHandle = { fill: (url: string) => void };

function ConnectForm({ c, handle }: { c: ConnectionDto; handle: RefObject<FormHandle | null> }) {
  const { t } = useI18n();
  const probe = useProbeServer();
  const connect = useConnectServer();
  const [address, setAddress] = useState("");
  const [probedFor, setProbedFor] = useState<string | null>(null);
  const [token, setToken] = useState("");
  const [showToken, setShowToken] = useState(false);
  const canRemember = c.token_store !== "none";
  const [remember, setRemember] = useState(canRemember);
  const [confirmed, setConfirmed] = useState(false);
  const [tokenMissing, setTokenMissing] = useState(false);
  const addressRef = useRef<HTMLInputElement>(null);
  const tokenRef = useRef<HTMLInputElement>(null);

  const p: ServerProbeDto | undefined = probe.data && probedFor === address.trim() ? probe.data : undefined;
  const known = p ? c.servers.find((s) => s.url === p.url) : undefined;
  const mustCompare = !!p && p.https && !p.trusted && !!p.fingerprint;
  const changed = mustCompare && !!known?.fingerprint && !sameFingerprint(known.fingerprint, p.fingerprint!);
  const savedToken = !!known?.has_token;
  const busy = probe.isPending || connect.isPending;
  const canConnect = !!p && !busy && (!mustCompare || confirmed);

  const check = (url: string) => {
    const a = url.trim();
    if (!a) return;
    connect.reset();
    setConfirmed(false);
    setTokenMissing(false);
    setProbedFor(a);
    probe.mutate(a);
  };

  // Connect on a remembered server without a saved token: its address here, checked, and the
  // token field focused.
  useImperativeHandle(handle, () => ({
    fill(url: string) {
      setAddress(url);
      check(url);
      addressRef.current?.scrollIntoView?.({ block: "center" });
      tokenRef.current?.focus();
    },
  }));

  const submit = () => {
    if (busy) return;
    if (!p) return check(address);
    if (!canConnect) return;
    if (p.needs_token && !token.trim() && !savedToken) {
      setTokenMissing(true);
      tokenRef.current?.focus();
      return;
    }
    connect.mutate(
      { url: p.url, token: token.trim() || null, fingerprint: mustCompare ? p.fingerprint : null, remember: canRemember && remember },
      {
        onSuccess: () => {
          setAddress("");
          setToken("");
          setProbedFor(null);
          setConfirmed(false);
          probe.reset();
        },
      },
    );
  };

  return (
    <form
      className="remote-form"
      noValidate
      aria-labelledby="remote-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      // Enter in a field: Check, then Connect (the browser would not submit while Connect is
      // disabled, which it is until the address is checked).
      onKeyDown={(e) => {
        const el = e.target;
        if (e.key === "Enter" && el instanceof HTMLInputElement && el.type !== "checkbox") {
          e.preventDefault();
          submit();
        }
      }}
      data-testid="remote-form"
    >
      <h3 className="subsection-title" id="remote-form-title">
        {t("remote.newServer")}
      </h3>
      <div className="form-grid">
        <label htmlFor="remote-address">{t("remote.address")}</label>
        <div>
          <div className="path-field">
            <input
              ref={addressRef}
              id="remote-address"
              type="text"
              inputMode="url"
              className="mono"
              spellCheck={false}
              autoComplete="off"
              placeholder="https://studio.local:8443"
              value={address}
              aria-invalid={probe.isError && probedFor === address.trim()}
              aria-describedby={probe.isError ? "remote-address-hint remote-probe-error" : "remote-address-hint"}
              onChange={(e) => {
                setAddress(e.target.value);
                setConfirmed(false);
                connect.reset();
              }}
              data-testid="remote-address"
            />
            <button type="button" className="btn" disabled={!address.trim() || busy} onClick={() => check(address)} data-testid="remote-check">
              {probe.isPending ? t("remote.checking") : t("remote.check")}
            </button>
          </div>
          <div className="field-hint" id="remote-address-hint">
            {t("remote.addressHint")}
          </div>
          {probe.isError && probedFor === address.trim() ? <FieldError id="remote-probe-error" error={probe.error} override={PROBE_ERRORS} testId="remote-probe-error" /> : null}
          {p ? <ProbeView p={p} changed={changed} /> : null}
          {mustCompare ? (
            <label className="confirm-check" data-testid="remote-confirm-label">
              <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} required aria-required="true" data-testid="remote-confirm" />
              <span>{t("remote.confirm")}</span>
            </label>
          ) : null}
        </div>

        <label htmlFor="remote-token">{t("remote.token")}</label>
        <div>
          <div className="path-field">
            <input
              ref={tokenRef}
              id="remote-token"
              type={showToken ? "text" : "password"}
              className="mono"
              autoComplete="off"
              spellCheck={false}
              value={token}
              placeholder={savedToken ? t("remote.tokenSavedPlaceholder") : ""}
              aria-invalid={tokenMissing || undefined}
              aria-describedby={tokenMissing ? "remote-token-hint remote-token-missing" : "remote-token-hint"}
              onChange={(e) => {
                setToken(e.target.value);
                setTokenMissing(false);
                connect.reset();
              }}
              data-testid="remote-token"
            />
            <button
              type="button"
              className="btn btn-small"
              aria-pressed={showToken}
              aria-label={showToken ? t("remote.hideTokenLabel") : t("remote.showTokenLabel")}
              onClick={() => setShowToken((v) => !v)}
              data-testid="remote-token-show"
            >
              {showToken ? t("remote.hideToken") : t("remote.showToken")}
            </button>
          </div>
          <div className="field-hint" id="remote-token-hint">
            {savedToken ? t("remote.tokenSavedHint") : t("remote.tokenHint")}
          </div>
          {tokenMissing ? (
            <div id="remote-token-missing" className="field-hint inline-error" role="alert" data-testid="remote-token-missing">
              {t("remote.tokenMissing")}
            </div>
          ) : null}
        </div>

        <span className="form-grid-label" aria-hidden="true" />
        <div>
          <label className="check">
            <input type="checkbox" checked={canRemember && remember} disabled={!canRemember} onChange={(e) => setRemember(e.target.checked)} aria-describedby="remote-store-hint" data-testid="remote-remember" />
            {t("remote.remember")}
          </label>
          <div className="field-hint" id="remote-store-hint" data-testid="remote-store-hint">
            {t(STORE_HINT[c.token_store] ?? "remote.store.none")}
          </div>
        </div>
      </div>
      {connect.isError ? <FieldError id="remote-connect-error" error={connect.error} override={CONNECT_ERRORS} testId="remote-connect-error" /> : null}
      <div className="remote-form-actions">
        <button type="submit" className="btn btn-primary" disabled={!canConnect} aria-describedby={connect.isError ? "remote-connect-error" : undefined} data-testid="remote-connect">
          {connect.isPending ? t("remote.connecting") : t("remote.connect")}
        </button>
        {!p && !probe.isPending ? <span className="field-hint">{t("remote.checkFirst")}</span> : null}
        {mustCompare && !confirmed ? <span className="field-hint">{t("remote.compareFirst")}</span> : null}
      </div>
    </form>
  );
}

/** What Check found: https or http, whether a token is asked, the certificate. */
function ProbeView({ p, changed }: { p: ServerProbeDto; changed: boolean }) {
  const { t } = useI18n();
  const compare = p.https && !p.trusted && !!p.fingerprint;
  return (
    <div className={compare ? "remote-probe inspection warn" : "remote-probe inspection ok"} role="status" data-testid="remote-probe">
      <div className="remote-probe-head">
        <Icon name={compare ? "warning" : "check"} size={14} />
        <strong>{p.host}</strong>
        <span className={p.https ? "tag tag-ok" : "tag tag-muted"} data-testid="remote-probe-scheme">
          {p.https ? t("remote.probe.https") : t("remote.probe.http")}
        </span>
        <span className="tag tag-muted" data-testid="remote-probe-token">
          {p.needs_token ? t("remote.probe.needsToken") : t("remote.probe.noToken")}
        </span>
      </div>
      {p.https ? <div className="remote-probe-line">{p.trusted ? t("remote.probe.trusted") : t("remote.probe.selfSigned")}</div> : <div className="remote-probe-line">{t("remote.probe.local")}</div>}
      {compare ? (
        <div className="remote-fingerprint" aria-label={t("remote.fingerprint")} data-testid="remote-fingerprint" title={p.fingerprint!}>
          {fingerprintGroups(p.fingerprint!).map((g, i) => (
            <span key={i}>{g}</span>
          ))}
        </div>
      ) : null}
      {changed ? (
        <div className="remote-probe-line remote-changed" role="alert" data-testid="remote-fingerprint-changed">
          <Icon name="warning" size={13} /> {t("remote.probe.changed", { host: p.host })}
        </div>
      ) : null}
    </div>
  );
}
