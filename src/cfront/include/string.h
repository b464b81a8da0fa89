/* nemos's <string.h>: `memset` and `memcpy` on objects whose size is a constant nemos
 * knows (an array of scalars, a scalar); other uses, and the rest, are refused. */
#ifndef NEMOS_STRING_H
#define NEMOS_STRING_H

#include <stddef.h>

void *memset(void *block, int byte, size_t size);
void *memcpy(void *to, const void *from, size_t size);
void *memmove(void *to, const void *from, size_t size);
int memcmp(const void *a, const void *b, size_t size);
size_t strlen(const char *text);

#endif
