package batch

import (
	"reflect"
	"testing"
)

func TestChunk(t *testing.T) {
	cases := []struct {
		items []string
		size  int
		want  [][]string
	}{
		{[]string{"a", "b", "c", "d"}, 2, [][]string{{"a", "b"}, {"c", "d"}}},
		{[]string{"a", "b", "c", "d", "e"}, 2, [][]string{{"a", "b"}, {"c", "d"}, {"e"}}},
		{[]string{"a"}, 3, [][]string{{"a"}}},
		{nil, 3, nil},
	}
	for _, c := range cases {
		if got := Chunk(c.items, c.size); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Chunk(%v, %d) = %v, want %v", c.items, c.size, got, c.want)
		}
	}
}
