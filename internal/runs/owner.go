package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"sync"
)

// pidScope names the pid namespace this process sees, on this boot of this
// kernel: a pid in a lease owner means a process only there. Containers of
// one host can share a hostname (host networking, a set hostname) while each
// has its own pids, every greatbook in them pid 1; without the scope one
// would look its neighbour's pid up in its own /proc, find another process,
// judge a live worker dead and take its runs over until they fail. "" when
// the kernel does not say (not Linux): then no owner's death is judged by pid.
var pidScope = sync.OnceValue(func() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(string(boot) + "\n" + ns))
	return hex.EncodeToString(sum[:6])
})
