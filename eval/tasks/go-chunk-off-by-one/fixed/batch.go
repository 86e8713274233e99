// Package batch splits work into fixed-size batches for the uploader.
package batch

// Chunk splits items into batches of at most size items, keeping their order.
func Chunk(items []string, size int) [][]string {
	if size <= 0 {
		panic("batch: size must be positive")
	}
	var batches [][]string
	for start := 0; start < len(items); start += size {
		end := start + size
		if end > len(items) {
			end = len(items)
		}
		batches = append(batches, items[start:end])
	}
	return batches
}
