package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// namedFlagSets keeps flags in named sections, in the order they were
// added, so --help prints them the way kube-apiserver does.
type namedFlagSets struct {
	order []string
	sets  map[string]*pflag.FlagSet
}

// FlagSet returns the section called name, creating it on first use.
func (n *namedFlagSets) FlagSet(name string) *pflag.FlagSet {
	if n.sets == nil {
		n.sets = map[string]*pflag.FlagSet{}
	}
	if fs, ok := n.sets[name]; ok {
		return fs
	}
	fs := pflag.NewFlagSet(name, pflag.ExitOnError)
	n.sets[name] = fs
	n.order = append(n.order, name)
	return fs
}

// addTo adds every section's flags to the command's flag set.
func (n *namedFlagSets) addTo(fs *pflag.FlagSet) {
	for _, name := range n.order {
		fs.AddFlagSet(n.sets[name])
	}
}

// printSections writes each section under its title.
func (n *namedFlagSets) printSections(w io.Writer) {
	for _, name := range n.order {
		fs := n.sets[name]
		if !fs.HasFlags() {
			continue
		}
		fmt.Fprintf(w, "\n%s flags:\n\n%s", titled(name), fs.FlagUsagesWrapped(100))
	}
}

func titled(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// setSectionedUsage makes --help (on stdout) and usage errors (on stderr)
// print flags by section.
func setSectionedUsage(cmd *cobra.Command, sets *namedFlagSets) {
	usage := func(c *cobra.Command, w io.Writer) {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "Usage:\n  %s\n", c.UseLine())
		sets.printSections(&buf)
		if inherited := c.InheritedFlags(); inherited.HasFlags() {
			fmt.Fprintf(&buf, "\nGlobal flags:\n\n%s", inherited.FlagUsagesWrapped(100))
		}
		_, _ = w.Write(buf.Bytes())
	}
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		usage(c, c.OutOrStderr())
		return nil
	})
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintf(c.OutOrStdout(), "%s\n\n", strings.TrimSpace(c.Long))
		usage(c, c.OutOrStdout())
	})
}
