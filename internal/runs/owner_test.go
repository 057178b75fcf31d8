package runs

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A worker alive in another pid namespace of this host (a container with the
// host's hostname, where greatbook is pid 1) is not judged dead by looking
// its pid up in our /proc: its leases wait for their expiry.
func TestALiveOwnerInAnotherPIDNamespaceIsNotDead(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare(1) (util-linux)")
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", os.Args[0], "-test.run=^TestHelperPrintOwnerAndWait$")
	cmd.Env = append(os.Environ(), "GREATBOOK_TEST_PRINT_OWNER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	var owner string
	for lines.Scan() {
		if o, ok := strings.CutPrefix(lines.Text(), "owner "); ok {
			owner = o
			break
		}
	}
	if owner == "" {
		_ = stdin.Close()
		err := cmd.Wait()
		if strings.Contains(stderr.String(), "Operation not permitted") {
			t.Skipf("unshare needs privileges here: %v %s", err, stderr.String())
		}
		t.Fatalf("the worker in another pid namespace printed no owner: %v %s", err, stderr.String())
	}
	host, _ := os.Hostname()
	if !strings.HasPrefix(owner, host+"|1|") {
		t.Fatalf("owner %q: want this host's name and pid 1 (its own namespace)", owner)
	}
	if ownerDead(owner) {
		t.Fatalf("the live worker %q of another pid namespace was judged dead", owner)
	}
	// The same worker in this namespace, once its process is gone, is dead.
	mine := newOwner()
	gone := strings.Split(mine, "|")
	gone[1] = "999999999"
	if ownerDead(mine) || !ownerDead(strings.Join(gone, "|")) {
		t.Fatalf("in this namespace: %q dead %v, %q dead %v", mine, ownerDead(mine), strings.Join(gone, "|"), ownerDead(strings.Join(gone, "|")))
	}
}

// TestHelperPrintOwnerAndWait is the worker of the test above, run in
// another pid namespace: it prints its owner id and lives until its stdin
// closes.
func TestHelperPrintOwnerAndWait(t *testing.T) {
	if os.Getenv("GREATBOOK_TEST_PRINT_OWNER") != "1" {
		t.Skip("a helper process of TestALiveOwnerInAnotherPIDNamespaceIsNotDead")
	}
	os.Stdout.WriteString("owner " + newOwner() + "\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
}
