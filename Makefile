# GreatBook Intake. `make run` serves the app with demo data; `make test` runs every test.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

BIN               := bin/greatbook
PLAYWRIGHT_VERSION := 1.52.0
DRIVER_DIR        := $(CURDIR)/.cache/playwright-driver/$(PLAYWRIGHT_VERSION)
AXE_VERSION       := 4.14.1
AXE_DIR           := $(CURDIR)/.cache/axe-core/$(AXE_VERSION)
CHROMIUM          ?= /usr/bin/chromium
ADDR              ?= 127.0.0.1:8080
DATA_DIR          ?= .greatbook
GO_TEST_FLAGS     ?=
FUZZTIME          ?= 10000x
FUZZTIME_LONG     ?= 5m

export PLAYWRIGHT_DRIVER_PATH := $(DRIVER_DIR)
export GREATBOOK_AXE_PATH := $(AXE_DIR)/package/axe.min.js

.PHONY: help run build test test-deps reading-deps generate check-generated vet large-files package-lines fuzz fuzz-long bench lint clean distclean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

build: ## build bin/greatbook
	go build -o $(BIN) ./cmd/greatbook

run: reading-deps build ## serve the app with demo data on the embedded database (127.0.0.1:8080)
	./$(BIN) demo --data-dir $(DATA_DIR)
	./$(BIN) serve --addr $(ADDR) --data-dir $(DATA_DIR)

test-deps: reading-deps $(DRIVER_DIR)/package/cli.js $(AXE_DIR)/package/axe.min.js ## install what the tests need: the reading tools, Go modules, Chromium, pgbouncer, Saxon-HE and a JDK (CEN's validator), xmllint (the ISO 20022 schema), the Playwright driver, axe-core
	go mod download
	@missing=""; [ -x "$(CHROMIUM)" ] || missing=" chromium"; \
	  command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || missing="$$missing pgbouncer"; \
	  [ -f /usr/share/java/Saxon-HE.jar ] || missing="$$missing libsaxonhe-java"; \
	  command -v javac >/dev/null || missing="$$missing default-jdk-headless"; \
	  command -v xmllint >/dev/null || missing="$$missing libxml2-utils"; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	      echo "installing Debian's$$missing (once, about a minute)"; \
	      DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	      echo "missing:$$missing; run 'sudo apt-get install$$missing' (the browser, pooler and official-validator tests need them)" >&2; exit 1; \
	    fi; \
	  fi

# The tools that read supplier invoices without XML: poppler's pdfinfo,
# pdftotext and pdftoppm, and tesseract with the models of the suppliers'
# languages (English comes with tesseract-ocr).
TESSDATA := /usr/share/tesseract-ocr/5/tessdata
reading-deps: ## install the reading tools the app and the tests need: poppler-utils, tesseract-ocr and its German, French and Dutch models
	@missing=""; command -v pdftotext >/dev/null || missing=" poppler-utils"; \
	  command -v tesseract >/dev/null || missing="$$missing tesseract-ocr"; \
	  for lang in deu fra nld; do [ -f $(TESSDATA)/$$lang.traineddata ] || missing="$$missing tesseract-ocr-$$lang"; done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	      echo "installing Debian's$$missing (once, about a minute)"; \
	      DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	      echo "missing:$$missing; run 'sudo apt-get install$$missing' (the app reads invoices without XML with them)" >&2; exit 1; \
	    fi; \
	  fi

# The Playwright driver comes from the npm registry (its own installer
# downloads from a CDN this machine cannot reach).
$(DRIVER_DIR)/package/cli.js:
	rm -rf $(DRIVER_DIR) && mkdir -p $(DRIVER_DIR)
	cd $(DRIVER_DIR) && npm pack --silent playwright-core@$(PLAYWRIGHT_VERSION) >/dev/null \
	  && tar xzf playwright-core-$(PLAYWRIGHT_VERSION).tgz && rm playwright-core-$(PLAYWRIGHT_VERSION).tgz \
	  && ln -sf "$$(command -v node)" node
	test "$$($(DRIVER_DIR)/node $(DRIVER_DIR)/package/cli.js --version)" = "Version $(PLAYWRIGHT_VERSION)"

# axe-core (the accessibility checks the browser tests run on every page),
# from the npm registry like the driver; the tests inject axe.min.js.
$(AXE_DIR)/package/axe.min.js:
	rm -rf $(AXE_DIR) && mkdir -p $(AXE_DIR)
	cd $(AXE_DIR) && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null \
	  && tar xzf axe-core-$(AXE_VERSION).tgz && rm axe-core-$(AXE_VERSION).tgz
	grep -q '"version": "$(AXE_VERSION)"' $(AXE_DIR)/package/package.json

generate: ## regenerate the templ components
	go tool templ generate

check-generated: ## fail when regenerating the templ components would change them
	go tool templ generate >/dev/null 2>&1
	@if [ -n "$$(git status --porcelain -- views)" ]; then \
	  echo "generated templ files are stale; run 'make generate' and commit:" >&2; git status --porcelain -- views >&2; exit 1; \
	fi

vet: ## go vet and gofmt
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:" >&2; gofmt -l $$(git ls-files '*.go') >&2; exit 1; }

test: test-deps check-generated lint ## run every test (with -race) after lint, then each fuzz target briefly
	@mkdir -p artifacts && rm -f artifacts/official-summary.txt
	GREATBOOK_OFFICIAL_SUMMARY=$(CURDIR)/artifacts/official-summary.txt go test -race -count=1 $(GO_TEST_FLAGS) ./...
	@cat artifacts/official-summary.txt
	$(MAKE) --no-print-directory fuzz

fuzz: ## run each fuzz target for FUZZTIME (a count of executions: see docs/development.md)
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; \
	    if ! go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime=3s $$pkg > .fuzz.log 2>&1; then \
	      cat .fuzz.log >&2; rm -f .fuzz.log; echo "fuzzing found a failure: the input is saved under the package's testdata/fuzz; commit it as a seed once fixed" >&2; exit 1; \
	    fi; \
	  done; \
	done; rm -f .fuzz.log

# Nightly-style, not part of `make test`: a duration bound can fail a run with a bare "context deadline
# exceeded" (golang/go#75804), so a failure without a saved input under testdata/fuzz is that, not a find.
fuzz-long: ## run each fuzz target for FUZZTIME_LONG (5m), then CEN's validator against the rules on new mutants as long; nightly, not in `make test`
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f for $(FUZZTIME_LONG)"; \
	    if ! go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME_LONG) -fuzzminimizetime=1m $$pkg > .fuzz-long.log 2>&1; then \
	      cat .fuzz-long.log >&2; rm -f .fuzz-long.log; echo "fuzzing found a failure: the input is saved under the package's testdata/fuzz; commit it as a seed once fixed" >&2; exit 1; \
	    fi; \
	  done; \
	done; rm -f .fuzz-long.log
	go test -count=1 -timeout 0 -run '^TestTheOfficialValidatorAgrees$$' ./internal/en16931/official \
	  -official.duration=$(FUZZTIME_LONG) -official.seed=$$(date +%s) -official.keep=$(CURDIR)/artifacts/official

bench: reading-deps build ## measure throughput beside pgbench running the same SQL (ratios), and the reading of invoices from their text
	go run ./cmd/greatbook-bench

# A build output or another large blob committed by mistake stays in every clone for good; test data
# may be large, so testdata/ directories are exempt. The script names each file it refuses.
large-files: ## fail when a tracked file outside testdata/ is over 1 MB
	.ci/large-files

# staticcheck runs as a go tool pinned in go.mod (never linked into the binary), with its default
# checks; it reports nothing in the generated *_templ.go files, so nothing is excluded.
package-lines: ## print each package's production lines; fail when one under internal/ is over 3,000
	@.ci/package-lines -top 10

lint: vet large-files package-lines ## static checks: go vet, gofmt, no tracked file over 1 MB outside testdata/, no internal package over 3,000 lines, then staticcheck
	go tool staticcheck ./...

clean: ## remove build output and local state (keeps the test dependencies in .cache)
	rm -rf bin artifacts $(DATA_DIR)

distclean: clean ## clean, and remove the downloaded test dependencies (.cache: Playwright driver, axe-core)
	rm -rf .cache
