// Package config reads KEY=VALUE settings files.
package config

import (
	"bufio"
	"fmt"
	"strings"
)

// Parse reads KEY=VALUE lines; blank lines and lines starting with # are skipped.
func Parse(text string) (map[string]string, error) {
	settings := map[string]string{}
	scanner := bufio.NewScanner(strings.NewReader(text))
	lineNumber := 0
	for scanner.Scan() {
		lineNumber++
		line := strings.TrimSpace(scanner.Text())
		raw := scanner.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, found := strings.Cut(line, "=")
		if !found {
			return nil, fmt.Errorf("line %d: expected KEY=VALUE, got %q", lineNumber, line)
		}
		settings[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return settings, scanner.Err()
}
