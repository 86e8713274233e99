#include <string.h>
#include "strutil.h"

void reverse_in_place(char *text) {
    size_t length = strlen(text);
    if (length < 2) return;
    for (size_t i = 0, j = length; i < j; i++, j--) {
        char kept = text[i];
        text[i] = text[j];
        text[j] = kept;
    }
}

size_t count_char(const char *text, char wanted) {
    size_t count = 0;
    for (; *text; text++)
        if (*text == wanted) count++;
    return count;
}
