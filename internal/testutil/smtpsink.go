package testutil

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// SMTPMessage is one message an SMTPSink accepted.
type SMTPMessage struct {
	From string
	To   []string
	// Data is the message as sent (headers and body, dot-unstuffed, CRLF).
	Data string
}

// SMTPSink is a small SMTP server on a loopback port that accepts every
// message and keeps it. It can be stopped (the port then refuses
// connections) and restarted on the same port.
type SMTPSink struct {
	t    testing.TB
	addr string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	msgs  []SMTPMessage
	wg    sync.WaitGroup
}

// NewSMTPSink starts a sink, stopped when the test ends.
func NewSMTPSink(t testing.TB) *SMTPSink {
	t.Helper()
	s := &SMTPSink{t: t, addr: "127.0.0.1:0", conns: map[net.Conn]bool{}}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Addr is the sink's host:port (the same after a restart).
func (s *SMTPSink) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// URL is a GPUQUOTE_SMTP_URL for the sink.
func (s *SMTPSink) URL() string { return "smtp://" + s.Addr() + "?from=gpuquote@example.test" }

// Messages returns what the sink has accepted so far.
func (s *SMTPSink) Messages() []SMTPMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SMTPMessage(nil), s.msgs...)
}

// Stop closes the listener and every open conversation, and waits for them.
func (s *SMTPSink) Stop() {
	s.mu.Lock()
	if s.ln != nil {
		s.ln.Close()
		s.ln = nil
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Restart listens again on the same port.
func (s *SMTPSink) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatalf("smtp sink: listen on %s: %v", s.addr, err)
	}
	s.ln, s.addr = ln, ln.Addr().String()
	s.wg.Add(1)
	go s.accept(ln)
}

func (s *SMTPSink) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.ln != ln {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve speaks just enough SMTP for net/smtp: EHLO/HELO, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT (no STARTTLS, no AUTH).
func (s *SMTPSink) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReader(c)
	say := func(line string) bool {
		_, err := c.Write([]byte(line + "\r\n"))
		return err == nil
	}
	if !say("220 sink ESMTP") {
		return
	}
	var cur SMTPMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		arg := strings.TrimSpace(strings.TrimPrefix(line, strings.SplitN(line, " ", 2)[0]))
		switch verb {
		case "EHLO":
			say("250-sink")
			say("250 8BITMIME")
		case "HELO", "NOOP":
			say("250 ok")
		case "RSET":
			cur = SMTPMessage{}
			say("250 ok")
		case "MAIL":
			cur = SMTPMessage{From: addrOf(arg)}
			say("250 ok")
		case "RCPT":
			cur.To = append(cur.To, addrOf(arg))
			say("250 ok")
		case "DATA":
			if !say("354 go ahead") {
				return
			}
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, cur)
			s.mu.Unlock()
			cur = SMTPMessage{}
			say("250 queued")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

// addrOf reads the address of "FROM:<a@b>" or "TO:<a@b>".
func addrOf(arg string) string {
	if i := strings.Index(arg, "<"); i >= 0 {
		if j := strings.Index(arg[i:], ">"); j > 0 {
			return arg[i+1 : i+j]
		}
	}
	return arg
}
