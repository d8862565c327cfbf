/* common/array.h: the one way a growing array grows.
 *
 * An array is a pointer to its first item (NULL while empty), the number of
 * items in use and the number allocated (CAP).  sp_array_reserve() makes
 * room for NEED items: capacity doubles from 16, so appending N items one at
 * a time costs O(N) copies in all.  Never prints, never exits.
 */
#ifndef SP_ARRAY_H
#define SP_ARRAY_H

#include <stddef.h>

/* sp_array_reserve: ITEMS_PTR is the address of the array's pointer (a
 * `struct x **` passed as void *), CAP the address of its capacity, SIZE one
 * item's size in bytes.  When NEED > *CAP the array is reallocated to the
 * smallest doubling of *CAP (16 when 0) that holds NEED items; the items in
 * use keep their values, the rest is uninitialised.  Returns 0, or -1 with
 * errno ENOMEM (allocation failed, or NEED * SIZE overflows size_t); on
 * failure the array and *CAP are unchanged.  The array stays the caller's
 * (free it with free()). */
int sp_array_reserve(void *items_ptr, size_t *cap, size_t need, size_t size);

/* SP_ARRAY_RESERVE(ARR, CAP, NEED): sp_array_reserve for an lvalue pointer
 * ARR and an lvalue size_t CAP. */
#define SP_ARRAY_RESERVE(arr, cap, need) \
    sp_array_reserve(&(arr), &(cap), (need), sizeof *(arr))

#endif
