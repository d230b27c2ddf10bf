package jsonbody

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Decode reads the tree n into v (a pointer) and returns every field v
// does not have (Unknown) and every value of the wrong JSON type
// (WrongType), each at its path, in document order. A struct field is
// matched by its json tag exactly (no case folding: a misspelt field is
// named, never guessed); a string reads a JSON string only, a number in
// its place included (decimals travel as strings); a whole number a JSON
// integer only; a bool a JSON boolean; a slice an array; a struct or a
// map an object; a *Node any value as it is. null leaves a value as it
// was (a pointer nil), as an absent field does.
func Decode(n *Node, v any) []Problem {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("jsonbody: Decode needs a non-nil pointer")
	}
	d := &decoder{}
	d.value("", n, rv.Elem())
	return d.problems
}

type decoder struct{ problems []Problem }

func (d *decoder) add(path string, kind ProblemKind, want Type) {
	if len(d.problems) < MaxProblems {
		d.problems = append(d.problems, Problem{Path: path, Kind: kind, Want: want})
	}
}

var nodeType = reflect.TypeFor[*Node]()

// integer is a JSON number without fraction or exponent.
var integer = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

func (d *decoder) value(path string, n *Node, v reflect.Value) {
	if v.Type() == nodeType {
		v.Set(reflect.ValueOf(n))
		return
	}
	if n.Kind == Null {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(path, n, v.Elem())
	case reflect.String:
		if n.Kind != String {
			d.add(path, WrongType, TypeString)
			return
		}
		v.SetString(n.Text)
	case reflect.Bool:
		if n.Kind != Bool {
			d.add(path, WrongType, TypeBoolean)
			return
		}
		v.SetBool(n.Bool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(n.Text, 10, 64)
		if n.Kind != Number || !integer.MatchString(n.Text) || err != nil || v.OverflowInt(i) {
			d.add(path, WrongType, TypeInteger)
			return
		}
		v.SetInt(i)
	case reflect.Slice:
		if n.Kind != Array {
			d.add(path, WrongType, TypeArray)
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Vals), len(n.Vals))
		for i, e := range n.Vals {
			d.value(Index(path, i), e, s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != Object {
			d.add(path, WrongType, TypeObject)
			return
		}
		if v.Type().Key().Kind() != reflect.String {
			panic("jsonbody: a map's keys must be strings: " + v.Type().String())
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Keys)))
		}
		for i, k := range n.Keys {
			e := reflect.New(v.Type().Elem()).Elem()
			d.value(Join(path, k), n.Vals[i], e)
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
	case reflect.Struct:
		if n.Kind != Object {
			d.add(path, WrongType, TypeObject)
			return
		}
		fields := structFields(v.Type())
		for i, k := range n.Keys {
			idx, ok := fields[k]
			if !ok {
				d.add(Join(path, k), Unknown, 0)
				continue
			}
			d.value(Join(path, k), n.Vals[i], fieldByIndex(v, idx))
		}
	default:
		panic("jsonbody: cannot decode into " + v.Type().String())
	}
}

// fieldByIndex is v's field at index, allocating embedded pointers on the
// way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

var fieldCache sync.Map // reflect.Type → map[string][]int

// structFields maps a struct's JSON names to their field indexes: the
// exported fields by their json tag (or Go name), those of embedded
// structs as if they were its own; a tag "-" is never read.
func structFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(append([]int(nil), prefix...), i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" && tag == "-" {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, idx)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if old, taken := m[name]; !taken || len(idx) < len(old) {
				m[name] = idx // the shallower field wins, as in encoding/json
			}
		}
	}
	walk(t, nil)
	fieldCache.Store(t, m)
	return m
}
