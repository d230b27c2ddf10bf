// Command gpuquote runs the gpuquote web application and its maintenance
// tasks: serve, migrate, seed and user.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"gpuquote/internal/config"
)

const usage = `gpuquote — GPU rental quotes, hidden costs and total cost of ownership

Usage:
  gpuquote serve                 serve the web application (GPUQUOTE_ADDR)
  gpuquote migrate               create the database if missing, apply migrations, and create
                                 and grant the serving role (GPUQUOTE_APP_ROLE)
  gpuquote app-url               print the connection string serve uses: the owner's with the
                                 serving role's name and password
  gpuquote seed                  load sample data into an empty database
  gpuquote user create --email E [--name N] [--role R] [--password-stdin]
                                 create a user; prints a generated password once
  gpuquote user password --email E [--password-stdin]
                                 set a new password for a user

Configuration comes from the environment; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		// One clear line; details were logged where useful.
		fmt.Fprintln(os.Stderr, "gpuquote:", err)
		os.Exit(1)
	}
}

// errUsage asks main to print the usage text.
var errUsage = errors.New("unknown command (run 'gpuquote help')")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	switch args[0] {
	case "serve":
		return serve(ctx, cfg, log, stdout)
	case "migrate":
		return migrate(ctx, cfg, stdout)
	case "app-url":
		return appURL(cfg, stdout)
	case "seed":
		return seed(ctx, cfg, stdout)
	case "user":
		return userCommand(ctx, cfg, args[1:], stdin, stdout)
	default:
		fmt.Fprint(stderr, usage)
		return errUsage
	}
}
