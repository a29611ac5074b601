# The README's two commands live here: `make run` and `make test`.
SHELL := /bin/bash
CARGO ?= cargo
SAMPLE ?= $(CURDIR)/sample

.PHONY: test check fmt-check clippy rust-test run demo cli clean

## Every check and test (what .ci/run runs).
test: fmt-check clippy rust-test

check: fmt-check clippy

fmt-check:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

rust-test:
	$(CARGO) test --workspace

## The oryx CLI, built once.
cli:
	$(CARGO) build -p oryx-cli

## A sample root to play with: ./sample
demo: cli
	@if [ -d "$(SAMPLE)" ]; then echo "$(SAMPLE) exists; remove it to rebuild"; else ./target/debug/oryx demo "$(SAMPLE)"; fi

run: demo
	./target/debug/oryx --root "$(SAMPLE)" agents

clean:
	$(CARGO) clean
