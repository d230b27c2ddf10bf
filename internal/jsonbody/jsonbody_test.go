package jsonbody

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// problems writes problems as "path:kind" (with the wanted type of a
// WrongType).
func problems(ps []Problem) []string {
	out := []string{}
	for _, p := range ps {
		s := fmt.Sprintf("%s:%d", p.Path, p.Kind)
		if p.Kind == WrongType {
			s += fmt.Sprintf("/%d", p.Want)
		}
		out = append(out, s)
	}
	return out
}

// TestParse: one JSON value and nothing else; every key given twice and
// every text the database cannot store named at its path; numbers as
// written.
func TestParse(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{"a": "x", "b": [1, {"c": true}]}`, []string{}},
		{`{"a": 1, "a": 2}`, []string{"a:2"}},
		{`{"a": {"b": 1, "b": 1}, "c": [{"d": 1, "d": 2}]}`, []string{"a.b:2", "c[0].d:2"}},
		{`{"a": "x\u0000y"}`, []string{"a:3"}},
		{`{"a": ["ok", "\u0001"]}`, []string{"a[1]:3"}},
		{"{\"a\": \"x\x7fy\"}", []string{"a:3"}},
		{"{\"a\": \"\xff\"}", []string{"a:3"}},
		{`{"a\u0000": 1}`, []string{":3"}},
		{"{\"a\": \"raw\ttab\"}", []string{":0"}},  // a control byte in a JSON string is not JSON
		{`{"a": "tab\tand\r\nlines"}`, []string{}}, // escaped, tab and line breaks are text
		{`{} {}`, []string{":0"}},
		{`{"a": }`, []string{":0"}},
		{``, []string{":0"}},
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), []string{":1"}},
	}
	for _, c := range cases {
		_, ps := Parse([]byte(c.body))
		if got := problems(ps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.body, got, c.want)
		}
	}
	n, _ := Parse([]byte(`{"p": 0.100000000000000005, "q": "v", "q": "w"}`))
	if p, _ := n.Get("p"); p.Kind != Number || p.Text != "0.100000000000000005" {
		t.Errorf("number %+v", p)
	}
	if q, _ := n.Get("q"); q.Text != "v" || len(n.Keys) != 2 {
		t.Errorf("the first of two keys is kept: %+v", n)
	}
	if n, _ := Parse([]byte(`{"a\u0000": 1, "b": 2}`)); !reflect.DeepEqual(n.Keys, []string{"b"}) {
		t.Errorf("a key that cannot be stored is left out: %v", n.Keys)
	}
	many := "{" + strings.Repeat(`"a": 1, `, 500) + `"a": 1}`
	if _, ps := Parse([]byte(many)); len(ps) != MaxProblems {
		t.Errorf("%d problems kept", len(ps))
	}
}

type inner struct {
	Hours *string `json:"hours"`
	Count *int64  `json:"count"`
}

type embedded struct {
	Kept string `json:"kept"`
}

type outer struct {
	embedded
	Title  string           `json:"title"`
	Flag   bool             `json:"flag"`
	N      int              `json:"n"`
	IDs    []int64          `json:"ids"`
	Inner  inner            `json:"inner"`
	Opt    *inner           `json:"opt"`
	Raw    *Node            `json:"raw"`
	Map    map[string]int   `json:"map"`
	Hidden string           `json:"-"`
	Nested map[string]inner `json:"nested"`
}

// TestDecode: each Go type reads its one JSON type; a field the value does
// not have and a value of another type are named by their dotted paths.
func TestDecode(t *testing.T) {
	good := `{"kept": "k", "title": "t", "flag": true, "n": -3, "ids": [1, 2], "inner": {"hours": "200", "count": 3},
		"opt": null, "raw": [1, "x"], "map": {"a": 1}, "nested": {"x": {"hours": "1"}}}`
	n, ps := Parse([]byte(good))
	var v outer
	if ps = append(ps, Decode(n, &v)...); len(ps) > 0 {
		t.Fatalf("problems %v", problems(ps))
	}
	if v.Kept != "k" || v.Title != "t" || !v.Flag || v.N != -3 || !reflect.DeepEqual(v.IDs, []int64{1, 2}) ||
		*v.Inner.Hours != "200" || *v.Inner.Count != 3 || v.Opt != nil || v.Raw.Kind != Array || v.Map["a"] != 1 ||
		*v.Nested["x"].Hours != "1" {
		t.Errorf("decoded %+v", v)
	}
	cases := []struct {
		body string
		want []string
	}{
		{`{"Title": "t"}`, []string{"Title:4"}},
		{`{"-": "x"}`, []string{"-:4"}},
		{`{"title": 5}`, []string{"title:5/0"}},
		{`{"title": {}}`, []string{"title:5/0"}},
		{`{"flag": "true"}`, []string{"flag:5/2"}},
		{`{"n": "1"}`, []string{"n:5/1"}},
		{`{"n": 1.5}`, []string{"n:5/1"}},
		{`{"n": 1e3}`, []string{"n:5/1"}},
		{`{"n": 99999999999999999999}`, []string{"n:5/1"}},
		{`{"ids": 1}`, []string{"ids:5/3"}},
		{`{"ids": [1, "2", 3.5]}`, []string{"ids[1]:5/1", "ids[2]:5/1"}},
		{`{"inner": []}`, []string{"inner:5/4"}},
		{`{"inner": {"hours": 200, "hour": "1"}}`, []string{"inner.hours:5/0", "inner.hour:4"}},
		{`{"opt": {"count": "3"}}`, []string{"opt.count:5/1"}},
		{`{"nested": {"x": {"y": 1}}}`, []string{"nested.x.y:4"}},
		{`{"map": {"a": "1"}}`, []string{"map.a:5/1"}},
		{`{"title": null, "n": null, "ids": null, "inner": null}`, []string{}},
	}
	for _, c := range cases {
		n, ps := Parse([]byte(c.body))
		if len(ps) > 0 {
			t.Fatalf("%s: %v", c.body, ps)
		}
		var v outer
		if got := problems(Decode(n, &v)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.body, got, c.want)
		}
	}
}
