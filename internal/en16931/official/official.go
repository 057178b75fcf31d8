// Package official runs CEN's own EN 16931 validators, the compiled XSLT of
// the official schematron, as the reference the product's rules answer to:
// the differential tests give the same documents to both and compare the
// verdicts, and the benchmark compares their speed. Both stylesheets are
// compiled once in one JVM (Saxon-HE, Debian's libsaxonhe-java), which then
// judges document after document.
package official

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

//go:embed Oracle.java
var oracleSource []byte

// DefaultSaxonJar is where Debian's libsaxonhe-java puts Saxon-HE.
const DefaultSaxonJar = "/usr/share/java/Saxon-HE.jar"

// Verdict is what the official validator says of one document: the ids of
// the rules that fired, by their flag. Err is set instead when the
// stylesheet could not judge the document at all (Saxon stops with a type
// error on some documents that repeat an element the XSLT expects once).
type Verdict struct {
	Fatal   []string
	Warning []string
	Err     string
}

// Options say where the parts are. StylesheetDir holds
// EN16931-UBL-validation.xslt and EN16931-CII-validation.xslt. SaxonJar
// defaults to $GREATBOOK_SAXON_JAR, then DefaultSaxonJar.
type Options struct {
	StylesheetDir string
	SaxonJar      string
}

// Validator is one running JVM with both stylesheets compiled. It judges
// one document at a time; Judge may be called from several goroutines.
type Validator struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// ErrMissing says that Java or Saxon-HE is not installed.
var ErrMissing = errors.New("official: the official validator needs Java and Saxon-HE (Debian's libsaxonhe-java; `make test-deps` installs it)")

// Start compiles the stylesheets in a new JVM and returns when it is ready.
func Start(opts Options) (*Validator, error) {
	jar := opts.SaxonJar
	if jar == "" {
		jar = os.Getenv("GREATBOOK_SAXON_JAR")
	}
	if jar == "" {
		jar = DefaultSaxonJar
	}
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMissing, err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMissing, err)
	}
	classes, err := compileOracle(jar)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(java, "-Xss8m", "-cp", jar+string(os.PathListSeparator)+classes, "Oracle",
		filepath.Join(opts.StylesheetDir, "EN16931-UBL-validation.xslt"), filepath.Join(opts.StylesheetDir, "EN16931-CII-validation.xslt"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("official: start the validator: %w", err)
	}
	v := &Validator{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	if line, err := v.out.ReadString('\n'); err != nil || line != "ready\n" {
		v.Close()
		return nil, fmt.Errorf("official: the validator did not start (%q): %v\n%s", line, err, stderr.Bytes())
	}
	return v, nil
}

// compileOracle compiles Oracle.java once per source and Saxon jar, into a
// folder of the system's temporary directory that later runs reuse.
func compileOracle(jar string) (string, error) {
	sum := sha256.Sum256(append(append([]byte(nil), oracleSource...), jar...))
	dir := filepath.Join(os.TempDir(), "greatbook-official-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "Oracle.class")); err == nil {
		return dir, nil
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMissing, err)
	}
	work, err := os.MkdirTemp(os.TempDir(), "greatbook-official-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "Oracle.java"), oracleSource, 0o644); err != nil {
		return "", err
	}
	if out, err := exec.Command(javac, "-nowarn", "-cp", jar, "-d", work, filepath.Join(work, "Oracle.java")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("official: compile the validator: %v\n%s", err, out)
	}
	// Another test binary may have compiled it meanwhile: either copy serves.
	if err := os.Rename(work, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "Oracle.class")); statErr != nil {
			return "", fmt.Errorf("official: keep the compiled validator: %w", err)
		}
	}
	return dir, nil
}

// Judge runs the official validator of syntax ("ubl" or "cii") on doc.
func (v *Validator) Judge(syntax string, doc []byte) (Verdict, error) {
	if syntax != "ubl" && syntax != "cii" {
		return Verdict{}, fmt.Errorf("official: unknown syntax %q", syntax)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, err := fmt.Fprintf(v.in, "%s %d\n", syntax, len(doc)); err != nil {
		return Verdict{}, fmt.Errorf("official: send a document: %w", err)
	}
	if _, err := v.in.Write(doc); err != nil {
		return Verdict{}, fmt.Errorf("official: send a document: %w", err)
	}
	line, err := v.out.ReadString('\n')
	if err != nil {
		return Verdict{}, fmt.Errorf("official: read the verdict: %w", err)
	}
	fields := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
	switch {
	case fields[0] == "ok" && len(fields) == 3:
		return Verdict{Fatal: ids(fields[1]), Warning: ids(fields[2])}, nil
	case fields[0] == "error" && len(fields) == 2:
		return Verdict{Err: fields[1]}, nil
	}
	return Verdict{}, fmt.Errorf("official: unreadable verdict %q", line)
}

func ids(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Close stops the JVM.
func (v *Validator) Close() error {
	v.in.Close()
	return v.cmd.Wait()
}
