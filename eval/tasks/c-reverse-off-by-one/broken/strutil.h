#ifndef STRUTIL_H
#define STRUTIL_H
#include <stddef.h>
void reverse_in_place(char *text);
size_t count_char(const char *text, char wanted);
#endif
