/* nemos's <stddef.h>. */
#ifndef NEMOS_STDDEF_H
#define NEMOS_STDDEF_H
#define NULL ((void *)0)
typedef unsigned long size_t;
typedef long ptrdiff_t;
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
