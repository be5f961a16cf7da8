// Package tokenfile authenticates static bearer tokens listed in a CSV file
// (--token-auth-file): one "token,user,uid[,\"group1,group2\"]" record a
// line. The file is read once; changing it needs a restart, as upstream.
package tokenfile

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

type tokenAuthenticator struct {
	tokens map[string]*user.DefaultInfo
}

var _ authenticator.Token = (*tokenAuthenticator)(nil)

// NewCSV reads the token file at path. Warnings (empty or duplicate
// tokens) are dropped; use NewCSVWithLogger to see them.
func NewCSV(path string) (authenticator.Token, error) {
	return NewCSVWithLogger(path, nil)
}

// NewCSVWithLogger is NewCSV reporting skipped records to logger (nil
// discards). A record with fewer than three columns fails the whole file;
// an empty token is skipped and a repeated token replaces the earlier one,
// both with a warning naming the record number, never the token.
func NewCSVWithLogger(path string, logger *slog.Logger) (authenticator.Token, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tokens, err := parse(f, path, logger)
	if err != nil {
		return nil, err
	}
	return &tokenAuthenticator{tokens: tokens}, nil
}

// parse reads records until EOF. Blank lines are skipped by encoding/csv;
// there is no comment syntax, as upstream.
func parse(r io.Reader, path string, logger *slog.Logger) (map[string]*user.DefaultInfo, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1
	tokens := map[string]*user.DefaultInfo{}
	for recordNum := 1; ; recordNum++ {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return tokens, nil
		}
		if err != nil {
			// csv.ParseError names a line and column, never the content.
			return nil, err
		}
		if len(record) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d", path, len(record))
		}
		token := record[0]
		if token == "" {
			logger.Warn("empty token has been found in token file", "path", path, "record", recordNum)
			continue
		}
		if _, dup := tokens[token]; dup {
			logger.Warn("duplicate token has been found in token file", "path", path, "record", recordNum)
		}
		info := &user.DefaultInfo{Name: record[1], UID: record[2]}
		if len(record) >= 4 {
			info.Groups = strings.Split(record[3], ",")
		}
		tokens[token] = info
	}
}

// AuthenticateToken implements authenticator.Token. A token not in the file
// is no opinion, so other token authenticators get their turn.
func (a *tokenAuthenticator) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	info, ok := a.tokens[token]
	if !ok {
		return nil, false, nil
	}
	// A copy, so that no caller can change what the next request sees.
	return &authenticator.Response{User: &user.DefaultInfo{
		Name:   info.Name,
		UID:    info.UID,
		Groups: slices.Clone(info.Groups),
	}}, true, nil
}
