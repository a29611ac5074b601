// A minimal W3C WebDriver client (fetch only): enough to drive the app through tauri-driver.
export class WebDriver {
  constructor(base) {
    this.base = base;
    this.session = null;
  }

  async req(method, path, body) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok || (json.value && json.value.error)) {
      const v = json.value || {};
      throw new Error(`${method} ${path}: ${v.error || res.status} ${v.message || ""}`.trim());
    }
    return json.value;
  }

  async start(application, env) {
    const caps = { capabilities: { alwaysMatch: { "tauri:options": { application, env } } } };
    const v = await this.req("POST", "/session", caps);
    this.session = v.sessionId;
  }

  s(path) {
    return `/session/${this.session}${path}`;
  }

  async find(css) {
    const v = await this.req("POST", this.s("/element"), { using: "css selector", value: css });
    return Object.values(v)[0];
  }

  async findAll(css) {
    const v = await this.req("POST", this.s("/elements"), { using: "css selector", value: css });
    return v.map((e) => Object.values(e)[0]);
  }

  click(id) {
    return this.req("POST", this.s(`/element/${id}/click`), {});
  }

  type(id, text) {
    return this.req("POST", this.s(`/element/${id}/value`), { text });
  }

  clear(id) {
    return this.req("POST", this.s(`/element/${id}/clear`), {});
  }

  text(id) {
    return this.req("GET", this.s(`/element/${id}/text`));
  }

  attr(id, name) {
    return this.req("GET", this.s(`/element/${id}/attribute/${name}`));
  }

  exec(script, args = []) {
    return this.req("POST", this.s("/execute/sync"), { script, args });
  }

  screenshot() {
    return this.req("GET", this.s("/screenshot"));
  }

  async quit() {
    if (this.session) await this.req("DELETE", this.s("")).catch(() => {});
    this.session = null;
  }
}
