package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// typeMarkers is the markers of one named type; it mirrors markers.Type.
type typeMarkers struct {
	ListType   string
	MapType    string
	StructType string
	Fields     map[string]field
}

func (t typeMarkers) empty() bool {
	return t.ListType == "" && t.MapType == "" && t.StructType == "" && len(t.Fields) == 0
}

// definitionName is the OpenAPI name of a type: the import path with its
// domain reversed, then the type name (k8s.io/api/apps/v1, Deployment →
// io.k8s.api.apps.v1.Deployment).
func definitionName(importPath, typeName string) string {
	domain, rest, _ := strings.Cut(importPath, "/")
	parts := strings.Split(domain, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	name := strings.Join(parts, ".")
	if rest != "" {
		name += "." + strings.ReplaceAll(rest, "/", ".")
	}
	return name + "." + typeName
}

// parsePackage reads the markers of every named type of one package,
// keyed by definition name. Types and fields without markers are left
// out. A marker the parser cannot place on a type or field is an error,
// so a layout change upstream cannot silently drop markers.
func parsePackage(pkg sourcePackage) (map[string]typeMarkers, error) {
	fset := token.NewFileSet()
	files, err := parseFiles(fset, pkg.Dir)
	if err != nil {
		return nil, err
	}
	consts := packageConsts(files)
	out := map[string]typeMarkers{}
	for _, file := range files {
		p := &fileParser{fset: fset, consts: consts, used: map[*ast.CommentGroup]bool{}}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && !gen.Lparen.IsValid() {
					doc = gen.Doc
				}
				t, err := p.typeMarkers(ts, doc)
				if err != nil {
					return nil, err
				}
				if t.empty() {
					continue
				}
				name := definitionName(pkg.ImportPath, ts.Name.Name)
				if _, dup := out[name]; dup {
					return nil, fmt.Errorf("%s: %s declared twice", fset.Position(ts.Pos()), name)
				}
				out[name] = t
			}
		}
		if err := p.checkStray(file); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseFiles parses the non-test Go files of dir that the default build
// context would compile, with comments.
func parseFiles(fset *token.FileSet, dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// fileParser holds what is needed while walking one file: the package's
// constants for +default=ref(...) and the comment groups already read.
type fileParser struct {
	fset   *token.FileSet
	consts map[string]ast.Expr
	used   map[*ast.CommentGroup]bool
}

func (p *fileParser) lines(cg *ast.CommentGroup) []string {
	if cg == nil {
		return nil
	}
	p.used[cg] = true
	return strings.Split(cg.Text(), "\n")
}

func (p *fileParser) typeMarkers(ts *ast.TypeSpec, doc *ast.CommentGroup) (typeMarkers, error) {
	own, err := parseMarkers(p.lines(doc))
	if err != nil {
		return typeMarkers{}, fmt.Errorf("%s: type %s: %w", p.fset.Position(ts.Pos()), ts.Name.Name, err)
	}
	t := typeMarkers{ListType: own.ListType, MapType: own.MapType, StructType: own.StructType}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return t, nil
	}
	for _, fd := range st.Fields.List {
		f, err := parseMarkers(p.lines(fd.Doc))
		if err == nil && isRef(f.Default) {
			f.Default, err = p.resolveRef(f.Default)
		}
		if err != nil {
			return typeMarkers{}, fmt.Errorf("%s: %s: %w", p.fset.Position(fd.Pos()), ts.Name.Name, err)
		}
		if f.empty() {
			continue
		}
		for _, name := range jsonNames(fd) {
			if t.Fields == nil {
				t.Fields = map[string]field{}
			}
			t.Fields[name] = f
		}
	}
	return t, nil
}

// jsonNames are the names a field has on the wire, as encoding/json names
// them: the tag's name, else the Go name. Embedded fields without a tag
// name are inlined, so their markers belong to no name of this type.
func jsonNames(fd *ast.Field) []string {
	var tagName string
	if fd.Tag != nil {
		if tag, err := strconv.Unquote(fd.Tag.Value); err == nil {
			tagName, _, _ = strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		}
	}
	if tagName == "-" {
		return nil
	}
	if len(fd.Names) == 0 {
		if tagName == "" {
			return nil
		}
		return []string{tagName}
	}
	var names []string
	for _, n := range fd.Names {
		switch {
		case !n.IsExported():
		case tagName != "":
			names = append(names, tagName)
		default:
			names = append(names, n.Name)
		}
	}
	return names
}

// resolveRef turns +default=ref(Ident) into the JSON of the constant
// Ident of the same package.
func (p *fileParser) resolveRef(ref string) (string, error) {
	ident := strings.TrimSuffix(strings.TrimPrefix(ref, "ref("), ")")
	expr, ok := p.consts[ident]
	if !ok {
		return "", fmt.Errorf("+default=%s: no constant %s in the package", ref, ident)
	}
	lit, ok := expr.(*ast.BasicLit)
	if !ok {
		return "", fmt.Errorf("+default=%s: constant is not a literal", ref)
	}
	switch lit.Kind {
	case token.STRING:
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(s)
		return string(b), err
	case token.INT, token.FLOAT:
		return lit.Value, nil
	}
	return "", fmt.Errorf("+default=%s: unsupported literal %s", ref, lit.Value)
}

// packageConsts maps each constant of the package that has an explicit
// value to that value's expression.
func packageConsts(files []*ast.File) map[string]ast.Expr {
	consts := map[string]ast.Expr{}
	for _, file := range files {
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						consts[n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return consts
}

// checkStray fails on a marker in a comment that is not the doc of a type
// or field read above (for example one separated from its field by a
// blank line), since it would otherwise be lost without a word. Comments
// that end in a commented-out field are tombstones and may keep markers.
func (p *fileParser) checkStray(file *ast.File) error {
	for _, cg := range file.Comments {
		if p.used[cg] {
			continue
		}
		lines := strings.Split(strings.TrimSpace(cg.Text()), "\n")
		if strings.Contains(lines[len(lines)-1], "`json:\"") {
			continue
		}
		for _, line := range lines {
			if isMarker(line) {
				return fmt.Errorf("%s: marker %q is not on a type or field", p.fset.Position(cg.Pos()), strings.TrimSpace(line))
			}
		}
	}
	return nil
}
