/* nemos's <assert.h>: `assert` stays a call, which nemos checks in every execution. */
#ifndef NEMOS_ASSERT_H
#define NEMOS_ASSERT_H
void assert(int condition);
#endif
