package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/mail"
	"strings"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// userCommand runs "gpuquote user create|password".
func userCommand(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: gpuquote user create|password --email E …")
	}
	fs := flag.NewFlagSet("user "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "email address")
	name := fs.String("name", "", "display name (default: the email's local part)")
	role := fs.String("role", string(auth.RoleAnalyst), "analyst, finance, editor or admin")
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("user %s: %w", args[0], err)
	}
	addr, err := mail.ParseAddress(*email)
	if err != nil || addr.Address != strings.TrimSpace(*email) {
		return errors.New("--email must be a plain address such as ana@example.com")
	}
	password, generated := auth.GeneratePassword(), true
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read password: %w", err)
		}
		password, generated = strings.TrimRight(line, "\r\n"), false
	}
	if err := auth.CheckPassword(password, addr.Address, *name); err != nil {
		return passwordRefused(err)
	}
	st, err := openOwnerStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Pool().Close()
	if err := st.CheckSchema(ctx); err != nil {
		return err
	}
	hash, err := newHasher().Hash(ctx, password)
	if err != nil {
		return err
	}
	switch args[0] {
	case "create":
		if !auth.Role(*role).Valid() {
			return fmt.Errorf("--role %q: want analyst, finance, editor or admin", *role)
		}
		display := strings.TrimSpace(*name)
		if display == "" {
			display, _, _ = strings.Cut(addr.Address, "@")
		}
		u, err := st.CreateUser(ctx, user.SystemActor, user.NewAccount{Email: addr.Address, DisplayName: display, Role: *role, PasswordHash: hash})
		if errors.Is(err, store.ErrEmailTaken) {
			return fmt.Errorf("a user with email %s already exists", addr.Address)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s user %s (id %d)\n", u.Role, u.Email, u.ID)
	case "password":
		u, found, err := st.UserByEmail(ctx, addr.Address)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("no user with email %s", addr.Address)
		}
		if err := auth.CheckPassword(password, u.Email, u.DisplayName); err != nil {
			return passwordRefused(err)
		}
		if err := st.SetUserPassword(ctx, user.SystemActor, u.ID, hash, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "password set for %s; their sessions have ended\n", u.Email)
	default:
		return fmt.Errorf("user %s: unknown subcommand (create or password)", args[0])
	}
	if generated {
		fmt.Fprintf(stdout, "password (shown once): %s\n", password)
	}
	return nil
}

// passwordRefused says why the password policy (docs/RULES.md §16.5)
// refused a password given on standard input.
func passwordRefused(err error) error {
	return fmt.Errorf("password refused: %w (8–128 characters; not only spaces, one short group repeated, "+
		"a keyboard or alphabet sequence, a common password or dictionary word, nor the account's email or name)", err)
}
