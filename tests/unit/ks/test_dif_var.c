/*
 * test_dif_var.c - variable semantics: global scalars (integers and
 * strings), thread-local isolation by tid, associative arrays with
 * multi-element keys (integers and strings), deletion by storing 0,
 * dynamic variable drops when the arena fills, missing variables reading
 * as 0 or "", clause-locals, and declaration conflicts.
 */
#include "test_dif_util.h"

#define GINT	0x500
#define GSTR	0x501
#define GARR	0x502
#define GSARR	0x503
#define TINT	0x500		/* thread-local ids are a separate space */
#define TSTR	0x501
#define TARR	0x502
#define LVAR	0x503

typedef struct key {
	const char *s;		/* string key, or NULL */
	uint64_t v;		/* integer key */
} key_t_;

static void declare_all(tdif_t *t)
{
	td_var(t, GINT, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	td_var(t, GSTR, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 1);
	td_var(t, GARR, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, 0);
	td_var(t, GSARR, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, 1);
	td_var(t, TINT, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, 0);
	td_var(t, TSTR, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, 1);
	td_var(t, TARR, DIFV_KIND_ARRAY, DIFV_SCOPE_THREAD, 0);
	td_var(t, LVAR, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, 0);
}

static void push_keys(tdif_t *t, const key_t_ *k, int n)
{
	td_emit(t, DIF_INSTR_FLUSHTS);
	for (int i = 0; i < n; i++) {
		if (k[i].s != NULL) {
			td_sets(t, 6, k[i].s);
			td_emit(t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_STRING, 0, 6));
		} else {
			td_setx(t, 6, k[i].v);
			td_emit(t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV,
			    DIF_TYPE_CTF, 0, 6));
		}
	}
}

/* var[keys] = val (op STGS/STTS/STGAA/STTAA/STLS); val_s for strings. */
static void store(tfire_t *f, unsigned op, uint32_t id, const key_t_ *k,
    int n, uint64_t val, const char *val_s)
{
	tdif_t t;

	td_init(&t);
	declare_all(&t);
	push_keys(&t, k, n);
	if (val_s != NULL)
		td_sets(&t, 1, val_s);
	else
		td_setx(&t, 1, val);
	td_emit(&t, DIF_INSTR_STV(op, id, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	td_run(&t, f);
}

static uint64_t fetch(tfire_t *f, unsigned op, uint32_t id, const key_t_ *k,
    int n)
{
	tdif_t t;

	td_init(&t);
	declare_all(&t);
	push_keys(&t, k, n);
	td_emit(&t, DIF_INSTR_LDV(op, id, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	return td_run(&t, f);
}

static const char *fetch_s(tfire_t *f, unsigned op, uint32_t id,
    const key_t_ *k, int n)
{
	return (const char *)(uintptr_t)fetch(f, op, id, k, n);
}

static void test_ks_dif_var_global_scalars(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(fetch(&f, DIF_OP_LDGS, GINT, NULL, 0), 0);
	store(&f, DIF_OP_STGS, GINT, NULL, 0, 12345, NULL);
	assert_int_equal(fetch(&f, DIF_OP_LDGS, GINT, NULL, 0), 12345);
	store(&f, DIF_OP_STGS, GINT, NULL, 0, 0, NULL);
	assert_int_equal(fetch(&f, DIF_OP_LDGS, GINT, NULL, 0), 0);
	assert_string_equal(fetch_s(&f, DIF_OP_LDGS, GSTR, NULL, 0), "");
	store(&f, DIF_OP_STGS, GSTR, NULL, 0, 0, "hello");
	assert_string_equal(fetch_s(&f, DIF_OP_LDGS, GSTR, NULL, 0), "hello");
	store(&f, DIF_OP_STGS, GSTR, NULL, 0, 0, "hi");
	assert_string_equal(fetch_s(&f, DIF_OP_LDGS, GSTR, NULL, 0), "hi");
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_var_string_bounded_by_strsize(void **state)
{
	tfire_t f;

	tf_init_sized(&f, 1 << 16, 4);
	store(&f, DIF_OP_STGS, GSTR, NULL, 0, 0, "abcdefgh");
	/* strsize counts the NUL: at most 3 characters */
	assert_string_equal(fetch_s(&f, DIF_OP_LDGS, GSTR, NULL, 0), "abc");
	store(&f, DIF_OP_STTS, TSTR, NULL, 0, 0, "xyzxyz");
	assert_string_equal(fetch_s(&f, DIF_OP_LDTS, TSTR, NULL, 0), "xyz");
	tf_fini(&f);
}

static void test_ks_dif_var_thread_local_isolation(void **state)
{
	tfire_t f;

	tf_init(&f);
	f.ctx.kpc_tid = 100;
	store(&f, DIF_OP_STTS, TINT, NULL, 0, 1, NULL);
	f.ctx.kpc_tid = 200;
	assert_int_equal(fetch(&f, DIF_OP_LDTS, TINT, NULL, 0), 0);
	store(&f, DIF_OP_STTS, TINT, NULL, 0, 2, NULL);
	f.ctx.kpc_tid = 100;
	assert_int_equal(fetch(&f, DIF_OP_LDTS, TINT, NULL, 0), 1);
	f.ctx.kpc_tid = 200;
	assert_int_equal(fetch(&f, DIF_OP_LDTS, TINT, NULL, 0), 2);
	/* a global with the same id is a different variable */
	assert_int_equal(fetch(&f, DIF_OP_LDGS, GINT, NULL, 0), 0);
	/* thread-local arrays too */
	{
		key_t_ k[1] = { { NULL, 5 } };

		store(&f, DIF_OP_STTAA, TARR, k, 1, 55, NULL);
		f.ctx.kpc_tid = 100;
		assert_int_equal(fetch(&f, DIF_OP_LDTAA, TARR, k, 1), 0);
		f.ctx.kpc_tid = 200;
		assert_int_equal(fetch(&f, DIF_OP_LDTAA, TARR, k, 1), 55);
	}
	tf_fini(&f);
}

static void test_ks_dif_var_missing_string_is_empty(void **state)
{
	tfire_t f;
	key_t_ k[1] = { { "nope", 0 } };

	tf_init(&f);
	assert_string_equal(fetch_s(&f, DIF_OP_LDTS, TSTR, NULL, 0), "");
	assert_string_equal(fetch_s(&f, DIF_OP_LDGAA, GSARR, k, 1), "");
	store(&f, DIF_OP_STTS, TSTR, NULL, 0, 0, "set");
	assert_string_equal(fetch_s(&f, DIF_OP_LDTS, TSTR, NULL, 0), "set");
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_var_assoc_tuple_keys(void **state)
{
	key_t_ k1[3] = { { NULL, 1 }, { "read", 0 }, { NULL, 2 } };
	key_t_ k2[3] = { { NULL, 1 }, { "write", 0 }, { NULL, 2 } };
	key_t_ k3[3] = { { NULL, 1 }, { "read", 0 }, { NULL, 3 } };
	key_t_ k4[2] = { { NULL, 1 }, { "read", 0 } };
	key_t_ s1[1] = { { "re", 0 } }, s2[2] = { { "r", 0 }, { "e", 0 } };
	tfire_t f;

	tf_init(&f);
	store(&f, DIF_OP_STGAA, GARR, k1, 3, 10, NULL);
	store(&f, DIF_OP_STGAA, GARR, k2, 3, 20, NULL);
	store(&f, DIF_OP_STGAA, GARR, k3, 3, 30, NULL);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k1, 3), 10);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k2, 3), 20);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k3, 3), 30);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k4, 2), 0);
	store(&f, DIF_OP_STGAA, GARR, k1, 3, 11, NULL);	/* overwrite */
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k1, 3), 11);
	/* ["re"] and ["r", "e"] are different keys */
	store(&f, DIF_OP_STGAA, GARR, s1, 1, 1, NULL);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, s2, 2), 0);
	/* string values */
	store(&f, DIF_OP_STGAA, GSARR, k1, 3, 0, "value");
	assert_string_equal(fetch_s(&f, DIF_OP_LDGAA, GSARR, k1, 3), "value");
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_var_store_zero_deletes(void **state)
{
	key_t_ k[2] = { { NULL, 9 }, { "x", 0 } };
	tfire_t f;

	tf_init(&f);
	assert_int_equal(ks_vstate_used(f.vs), 0);
	store(&f, DIF_OP_STGAA, GARR, k, 2, 5, NULL);
	store(&f, DIF_OP_STTS, TINT, NULL, 0, 6, NULL);
	assert_true(ks_vstate_used(f.vs) > 0);
	store(&f, DIF_OP_STGAA, GARR, k, 2, 0, NULL);
	store(&f, DIF_OP_STTS, TINT, NULL, 0, 0, NULL);
	assert_int_equal(ks_vstate_used(f.vs), 0);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, k, 2), 0);
	assert_int_equal(fetch(&f, DIF_OP_LDTS, TINT, NULL, 0), 0);
	/* deleting what does not exist is harmless */
	store(&f, DIF_OP_STGAA, GARR, k, 2, 0, NULL);
	assert_int_equal(ks_vstate_used(f.vs), 0);
	tf_fini(&f);
}

static void test_ks_dif_var_dynvar_drops_when_full(void **state)
{
	const int n = 100;
	tfire_t f;
	int stored = 0;

	tf_init_sized(&f, 1024, 32);
	for (int i = 0; i < n; i++) {
		key_t_ k[1] = { { NULL, (uint64_t)i } };

		store(&f, DIF_OP_STGAA, GARR, k, 1, 1000 + (uint64_t)i, NULL);
	}
	for (int i = 0; i < n; i++) {
		key_t_ k[1] = { { NULL, (uint64_t)i } };
		uint64_t v = fetch(&f, DIF_OP_LDGAA, GARR, k, 1);

		if (v != 0) {
			assert_int_equal(v, 1000 + (uint64_t)i);
			stored++;
		}
	}
	assert_true(stored > 0 && stored < n);
	assert_int_equal(ks_vstate_dyndrops(f.vs), (uint64_t)(n - stored));
	assert_true(ks_vstate_used(f.vs) <= 1024);
	/* deleting one makes room for exactly one more of the same size */
	{
		key_t_ k0[1] = { { NULL, 0 } }, kn[1] = { { NULL, 5000 } };
		key_t_ km[1] = { { NULL, 5001 } };

		store(&f, DIF_OP_STGAA, GARR, k0, 1, 0, NULL);
		store(&f, DIF_OP_STGAA, GARR, kn, 1, 7, NULL);
		assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, kn, 1), 7);
		store(&f, DIF_OP_STGAA, GARR, km, 1, 8, NULL);
		assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, km, 1), 0);
		assert_int_equal(ks_vstate_dyndrops(f.vs),
		    (uint64_t)(n - stored) + 1);
	}
	tf_fini(&f);
}

/* One object: counts[k] = counts[k] + delta (load, add, store). */
static uint64_t incr(tfire_t *f, const key_t_ *k, int n, uint64_t delta)
{
	tdif_t t;

	td_init(&t);
	declare_all(&t);
	push_keys(&t, k, n);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGAA, GARR, 1));
	td_setx(&t, 2, delta);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 1, 2, 1));
	td_emit(&t, DIF_INSTR_STV(DIF_OP_STGAA, GARR, 1));
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGAA, GARR, 3));
	td_emit(&t, DIF_INSTR_RET(3));
	return td_run(&t, f);
}

static void test_ks_dif_var_load_then_store_same_key(void **state)
{
	key_t_ a[2] = { { "k", 0 }, { NULL, 1 } }, b[2] = { { "k", 0 },
	    { NULL, 2 } };
	tfire_t f;

	tf_init(&f);
	assert_int_equal(incr(&f, a, 2, 1), 1);
	assert_int_equal(incr(&f, a, 2, 1), 2);
	assert_int_equal(incr(&f, b, 2, 5), 5);
	assert_int_equal(incr(&f, a, 2, 1), 3);
	/* storing 0 through the same path deletes */
	assert_int_equal(incr(&f, a, 2, (uint64_t)-3), 0);
	assert_int_equal(fetch(&f, DIF_OP_LDGAA, GARR, a, 2), 0);
	assert_int_equal(incr(&f, b, 2, (uint64_t)-5), 0);
	assert_int_equal(ks_vstate_used(f.vs), 0);
	assert_int_equal(incr(&f, a, 2, 7), 7);
	tf_fini(&f);
}

/* A NULL string pushed by reference (with a size register that is not 0)
 * is an empty key element, never a read of address 0. */
static void test_ks_dif_var_null_string_key(void **state)
{
	tfire_t f;
	tdif_t t;

	tf_init(&f);
	td_init(&t);
	declare_all(&t);
	td_setx(&t, 1, 1);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 1, 0));
	td_setx(&t, 2, 9);
	td_emit(&t, DIF_INSTR_STV(DIF_OP_STGAA, GARR, 2));
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGAA, GARR, 3));
	td_emit(&t, DIF_INSTR_RET(3));
	assert_int_equal(td_run(&t, &f), 9);
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

/* Declare a by-ref (struct-like) variable of size bytes. */
static void td_refvar(tdif_t *t, uint32_t id, unsigned kind, unsigned scope,
    uint32_t size)
{
	td_var(t, id, kind, scope, 0);
	t->vars[t->dp.dtdo_varlen - 1].dtdv_type.dtdt_flags = DIF_TF_BYREF;
	t->vars[t->dp.dtdo_varlen - 1].dtdv_type.dtdt_size = size;
}

/*
 * r3 = alloca(16) holding { a, b }; then op stores r3 into variable id
 * (keyed, for arrays, by the same 16 bytes pushed by reference), and the
 * result is the second word loaded back through the variable.
 */
static uint64_t refvar_roundtrip(tfire_t *f, unsigned st, unsigned ld,
    uint32_t id, uint64_t a, uint64_t b)
{
	tdif_t t;

	td_init(&t);
	td_refvar(&t, 0x520, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 16);
	td_refvar(&t, 0x521, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, 16);
	td_refvar(&t, 0x520, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, 16);
	td_setx(&t, 1, 16);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 3));
	td_setx(&t, 4, a);
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STX, 4, 3));
	td_setx(&t, 5, 8);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 3, 5, 5));
	td_setx(&t, 4, b);
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STX, 4, 5));
	td_emit(&t, DIF_INSTR_FLUSHTS);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_CTF, 1, 3));
	td_emit(&t, DIF_INSTR_STV(st, id, 3));
	/* overwrite the source: the variable keeps its own copy */
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STX, 0, 5));
	td_emit(&t, DIF_INSTR_LDV(ld, id, 6));
	td_setx(&t, 5, 8);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 6, 5, 6));
	td_emit(&t, DIF_INSTR_LOAD(DIF_OP_LDX, 6, 7));
	td_emit(&t, DIF_INSTR_RET(7));
	return td_run(&t, f);
}

static void test_ks_dif_var_byref_values(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(refvar_roundtrip(&f, DIF_OP_STGS, DIF_OP_LDGS, 0x520,
	    1, 22), 22);
	assert_int_equal(refvar_roundtrip(&f, DIF_OP_STTS, DIF_OP_LDTS, 0x520,
	    3, 44), 44);
	/* the array is keyed by the 16 bytes at r3: once they change, the
	 * load looks up another key (no stale cached key) and finds nothing */
	assert_int_equal(refvar_roundtrip(&f, DIF_OP_STGAA, DIF_OP_LDGAA,
	    0x521, 5, 66), 0);
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_var_ref_key_too_big(void **state)
{
	tfire_t f;
	tdif_t t;

	tf_init_sized(&f, 4096, 8);
	td_init(&t);
	declare_all(&t);
	td_setx(&t, 1, 64);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 3));
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_CTF, 1, 3));
	td_emit(&t, DIF_INSTR_STV(DIF_OP_STGAA, GARR, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	td_run(&t, &f);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADSIZE);
	tf_fini(&f);
}

static void test_ks_dif_var_clause_locals(void **state)
{
	tfire_t f;

	tf_init(&f);
	store(&f, DIF_OP_STLS, LVAR, NULL, 0, 77, NULL);
	assert_int_equal(f.locals[LVAR - DIF_VAR_OTHER_UBASE], 77);
	assert_int_equal(fetch(&f, DIF_OP_LDLS, LVAR, NULL, 0), 77);
	/* a slot the mstate does not have faults */
	f.ms.kms_nlocals = 2;
	assert_int_equal(fetch(&f, DIF_OP_LDLS, LVAR, NULL, 0), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	tf_fini(&f);
}

static void test_ks_dif_var_undeclared_at_run_time(void **state)
{
	char err[128];
	tfire_t f;
	tdif_t t;

	/* verified but never declared in this vstate: ILLOP, not a crash */
	tf_init(&f);
	td_init(&t);
	td_var(&t, 0x600, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, 0x600, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	assert_int_equal(ks_dif_verify(&t.dp, err, sizeof (err)), 0);
	ks_dif_emulate_with(&t.dp, &f.ms, td_dispatch);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	tf_fini(&f);
}

static void test_ks_dif_var_declare_conflict(void **state)
{
	char err[128];
	tfire_t f;
	tdif_t t;

	tf_init(&f);
	td_init(&t);
	td_var(&t, 0x510, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	td_emit(&t, DIF_INSTR_RET(0));
	assert_int_equal(ks_vstate_declare(f.vs, &t.dp, err, sizeof (err)), 0);
	assert_int_equal(ks_vstate_declare(f.vs, &t.dp, err, sizeof (err)), 0);
	t.vars[0].dtdv_type.dtdt_kind = DIF_TYPE_STRING;
	t.vars[0].dtdv_type.dtdt_flags = DIF_TF_BYREF;
	assert_int_equal(ks_vstate_declare(f.vs, &t.dp, err, sizeof (err)), -1);
	assert_string_equal(err, "variable 0x510 is declared twice with "
	    "different types");
	/* a by-ref type too large to store */
	t.vars[0].dtdv_id = 0x511;
	t.vars[0].dtdv_type.dtdt_kind = DIF_TYPE_CTF;
	t.vars[0].dtdv_type.dtdt_size = 1 << 20;
	assert_int_equal(ks_vstate_declare(f.vs, &t.dp, err, sizeof (err)), -1);
	assert_string_equal(err, "variable 0x511: by-reference size 1048576 is "
	    "not in 1..16384");
	tf_fini(&f);
}

static void test_ks_dif_var_declare_table_is_bounded(void **state)
{
	char err[128];
	tfire_t f;
	tdif_t t;
	int rc = 0, n = 0;

	tf_init(&f);
	for (uint32_t id = 0x600; id < 0x600 + 600 && rc == 0; id++, n++) {
		td_init(&t);
		td_var(&t, id, DIFV_KIND_ARRAY, DIFV_SCOPE_THREAD, 0);
		td_emit(&t, DIF_INSTR_RET(0));
		rc = ks_vstate_declare(f.vs, &t.dp, err, sizeof (err));
	}
	assert_int_equal(rc, -1);
	assert_int_equal(n, 513);
	assert_string_equal(err, "variable 0x800: more than 512 variables");
	tf_fini(&f);
}

static void test_ks_dif_var_create_destroy(void **state)
{
	ks_vstate_t *vs = ks_vstate_create(0, 256);

	assert_non_null(vs);
	assert_int_equal(ks_vstate_strsize(vs), 256);
	assert_int_equal(ks_vstate_dyndrops(vs), 0);
	ks_vstate_destroy(vs);
	assert_null(ks_vstate_create(1024, 0));
	ks_vstate_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_dif_var_global_scalars),
		cmocka_unit_test(test_ks_dif_var_string_bounded_by_strsize),
		cmocka_unit_test(test_ks_dif_var_thread_local_isolation),
		cmocka_unit_test(test_ks_dif_var_missing_string_is_empty),
		cmocka_unit_test(test_ks_dif_var_assoc_tuple_keys),
		cmocka_unit_test(test_ks_dif_var_store_zero_deletes),
		cmocka_unit_test(test_ks_dif_var_dynvar_drops_when_full),
		cmocka_unit_test(test_ks_dif_var_load_then_store_same_key),
		cmocka_unit_test(test_ks_dif_var_null_string_key),
		cmocka_unit_test(test_ks_dif_var_byref_values),
		cmocka_unit_test(test_ks_dif_var_ref_key_too_big),
		cmocka_unit_test(test_ks_dif_var_clause_locals),
		cmocka_unit_test(test_ks_dif_var_undeclared_at_run_time),
		cmocka_unit_test(test_ks_dif_var_declare_conflict),
		cmocka_unit_test(test_ks_dif_var_declare_table_is_bounded),
		cmocka_unit_test(test_ks_dif_var_create_destroy),
	};

	return TD_RUN_BOTH(tests);
}
