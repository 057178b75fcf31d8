// Command greatbook is GreatBook Intake: the web app, its workers and the
// operator's command line, in one binary.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "greatbook: "+strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
}
