import { useState } from "react";

import type { BootstrapFileDto } from "../../backend/types";
import { CopyButton } from "../../components/CopyButton";
import { onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Markdown } from "../../components/Markdown";
import { Empty, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useFiles } from "../../queries/hooks";
import { href, navigate } from "../../router";

export function FilesPage({ name }: { name: string | null }) {
  const { t } = useI18n();
  const q = useFiles();
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("files.title")}</h1>
        <span className="page-sub">{t("files.subtitle")}</span>
      </div>
      <Loadable query={q} rows={8}>
        {(files) => (files.length === 0 ? <Empty>{t("files.empty")}</Empty> : <Files files={files} name={name ?? files[0]!.name} />)}
      </Loadable>
    </div>
  );
}

function Files({ files, name }: { files: BootstrapFileDto[]; name: string }) {
  const { t } = useI18n();
  const [raw, setRaw] = useState(false);
  const file = files.find((f) => f.name === name);
  return (
    <div className="files">
      <ul className="file-list" onKeyDown={onRowKeyDown} data-testid="file-list">
        {files.map((f) => (
          <li key={f.name}>
            <a
              href={href({ page: "files", name: f.name })}
              className={f.name === name ? "file-item active" : "file-item"}
              data-row
              data-testid={`file-${f.name}`}
              onKeyDown={(e) => e.key === "Enter" && navigate({ page: "files", name: f.name })}
            >
              <Icon name="files" size={14} />
              <span>{f.name}</span>
              {!f.exists ? <span className="tag tag-muted">{t("overview.missing")}</span> : null}
            </a>
          </li>
        ))}
      </ul>
      <section className="card file-view" data-testid="file-view">
        {!file ? (
          <Empty>{t("files.missing")}</Empty>
        ) : (
          <>
            <div className="part-head">
              <h3 className="mono">{file.name}</h3>
              <span className="tag tag-muted">{t("files.readOnly")}</span>
              <span className="spacer" />
              <div className="segmented" role="group">
                <button type="button" className={raw ? "" : "on"} aria-pressed={!raw} onClick={() => setRaw(false)} data-testid="file-rendered">
                  {t("common.rendered")}
                </button>
                <button type="button" className={raw ? "on" : ""} aria-pressed={raw} onClick={() => setRaw(true)} data-testid="file-raw">
                  {t("common.raw")}
                </button>
              </div>
              <CopyButton text={file.content} />
            </div>
            {!file.exists ? (
              <Empty>{t("files.missing")}</Empty>
            ) : raw ? (
              <pre className="part-text" data-testid="file-raw-text">
                {file.content}
              </pre>
            ) : (
              <Markdown source={file.content} testId="file-markdown" />
            )}
          </>
        )}
      </section>
    </div>
  );
}
