#include <stdio.h>
#include <string.h>
#include "strutil.h"

static int failures = 0;

static void expect_reversed(const char *input, const char *expected) {
    char buffer[64];
    strcpy(buffer, input);
    reverse_in_place(buffer);
    if (strcmp(buffer, expected) != 0) {
        printf("FAIL: reverse_in_place(\"%s\") gave \"%s\", expected \"%s\"\n", input, buffer, expected);
        failures++;
    }
}

int main(void) {
    expect_reversed("", "");
    expect_reversed("a", "a");
    expect_reversed("ab", "ba");
    expect_reversed("hello", "olleh");
    if (count_char("banana", 'a') != 3) { printf("FAIL: count_char\n"); failures++; }
    if (failures == 0) printf("all tests passed\n");
    return failures == 0 ? 0 : 1;
}
