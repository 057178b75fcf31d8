// Package browser drives real Chromium (Debian's /usr/bin/chromium) through
// playwright-go for end-to-end tests: one browser per test binary, a fresh
// context per test, and a screenshot in artifacts/ when a test fails.
package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/testkit"
)

// DriverVersion is the Playwright driver that playwright-go v0.5200.1 needs,
// laid out from the npm registry by `make test-deps`.
const DriverVersion = "1.52.0"

var (
	once     sync.Once
	pw       *playwright.Playwright
	chromium playwright.Browser
	startErr error
)

// AxeVersion is the axe-core whose axe.min.js the accessibility checks
// inject, laid out from the npm registry by `make test-deps`.
const AxeVersion = "4.14.1"

// AxeScript is the path of axe.min.js: GREATBOOK_AXE_PATH, else where `make
// test-deps` lays it out. A missing file fails the test (as a missing
// driver does): the checks must not pass by not running.
func AxeScript(t testing.TB) string {
	t.Helper()
	path := os.Getenv("GREATBOOK_AXE_PATH")
	if path == "" {
		path = filepath.Join(testkit.RepoRoot(), ".cache", "axe-core", AxeVersion, "package", "axe.min.js")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("browser: axe-core %s is not at %s; run `make test-deps` (make test does it)", AxeVersion, path)
	}
	return path
}

// DriverDir is where `make test-deps` lays out the driver, unless
// PLAYWRIGHT_DRIVER_PATH says otherwise.
func DriverDir() string {
	if d := os.Getenv("PLAYWRIGHT_DRIVER_PATH"); d != "" {
		return d
	}
	return filepath.Join(testkit.RepoRoot(), ".cache", "playwright-driver", DriverVersion)
}

func start() error {
	dir := DriverDir()
	if _, err := os.Stat(filepath.Join(dir, "package", "cli.js")); err != nil {
		return fmt.Errorf("browser: the Playwright driver %s is not at %s; run `make test-deps` (make test does it)", DriverVersion, dir)
	}
	exe := os.Getenv("GREATBOOK_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	if _, err := os.Stat(exe); err != nil {
		return fmt.Errorf("browser: Chromium is not at %s; run `make test-deps` as root (it installs Debian's chromium package) or set GREATBOOK_CHROMIUM", exe)
	}
	if os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
		if node, err := exec.LookPath("node"); err == nil {
			os.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
		}
	}
	var err error
	pw, err = playwright.Run(&playwright.RunOptions{DriverDirectory: dir, SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		return fmt.Errorf("browser: start the Playwright driver: %w", err)
	}
	chromium, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(true),
		Args: []string{"--disable-gpu", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--no-first-run", "--disable-quic"},
	})
	if err != nil {
		_ = pw.Stop()
		return fmt.Errorf("browser: launch Chromium: %w", err)
	}
	testkit.AtExit(func() {
		_ = chromium.Close()
		_ = pw.Stop()
	})
	return nil
}

// Options adjust a new browser context.
type Options struct {
	// Width and Height of the viewport (default 1280×900).
	Width, Height int
}

// NewContext returns a fresh browser context (its own cookies: a separate
// person) whose relative URLs resolve against baseURL.
func NewContext(t *testing.T, baseURL string, opts ...Options) playwright.BrowserContext {
	t.Helper()
	once.Do(func() { startErr = start() })
	if startErr != nil {
		t.Fatal(startErr)
	}
	o := Options{Width: 1280, Height: 900}
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx, err := chromium.NewContext(playwright.BrowserNewContextOptions{
		BaseURL:  playwright.String(baseURL),
		Viewport: &playwright.Size{Width: o.Width, Height: o.Height},
	})
	if err != nil {
		t.Fatalf("browser: new context: %v", err)
	}
	ctx.SetDefaultTimeout(10_000)
	t.Cleanup(func() { _ = ctx.Close() })
	return ctx
}

// NewPage opens a page in a fresh context. When the test fails, the page is
// saved as artifacts/<test name>.png.
func NewPage(t *testing.T, baseURL string, opts ...Options) playwright.Page {
	t.Helper()
	return PageIn(t, NewContext(t, baseURL, opts...))
}

// PageIn opens a page in an existing context, with the same screenshot on failure.
func PageIn(t *testing.T, ctx playwright.BrowserContext) playwright.Page {
	t.Helper()
	p, err := ctx.NewPage()
	if err != nil {
		t.Fatalf("browser: new page: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			path := ArtifactPath(t.Name() + ".png")
			if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err == nil {
				t.Logf("screenshot: %s", path)
			}
		}
	})
	return p
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ArtifactPath returns a path in the repository's ignored artifacts folder.
func ArtifactPath(name string) string {
	dir := filepath.Join(testkit.RepoRoot(), "artifacts")
	_ = os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, unsafeName.ReplaceAllString(name, "_"))
}

// Expect returns playwright's web-first assertions (they wait, up to the
// timeout, for a condition instead of sleeping).
func Expect() playwright.PlaywrightAssertions {
	return playwright.NewPlaywrightAssertions(10_000)
}
