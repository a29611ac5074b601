// While the window shows a console served on another machine (#11 item 8): one line above every
// page saying whose root it is, with a way back to this computer. The desktop only.
import { Icon } from "../../components/Icon";
import { fieldErrorText } from "../../components/FieldError";
import { BackendError } from "../../backend";
import { useI18n } from "../../i18n";
import { useConnection, useDisconnectServer } from "./hooks";
import "./remote.css";

export function RemoteBanner() {
  const { t } = useI18n();
  const q = useConnection();
  const disconnect = useDisconnectServer();
  const r = q.data?.remote;
  if (!r) return null;
  const failed = disconnect.isError ? BackendError.from(disconnect.error) : null;
  return (
    <div className="remote-banner" role="status" data-testid="remote-banner" title={r.url}>
      <Icon name="globe" size={14} />
      <strong className="remote-banner-label">{t("remote.banner")}</strong>
      <span className="remote-banner-sep">{" — "}</span>
      <span className="remote-banner-host" data-testid="remote-banner-host">
        {r.host}
      </span>
      <span className="remote-banner-sep">{" · "}</span>
      <code className="remote-banner-root" title={r.root} data-testid="remote-banner-root">
        {r.root}
      </code>
      <span className="remote-banner-sep">{" · "}</span>
      <span className="remote-banner-backend" data-testid="remote-banner-backend">
        {r.backend}
      </span>
      {failed ? (
        <span className="remote-banner-error" role="alert" title={failed.message} data-testid="remote-banner-error">
          <Icon name="error" size={13} /> {fieldErrorText(t, failed.code)}
        </span>
      ) : null}
      <button type="button" className="btn btn-small remote-banner-btn" disabled={disconnect.isPending} onClick={() => disconnect.mutate()} data-testid="remote-banner-disconnect">
        {disconnect.isPending ? t("remote.disconnecting") : t("remote.disconnect")}
      </button>
    </div>
  );
}
