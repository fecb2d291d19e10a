// Two glibc allocator calls that JavaScript cannot reach (src/cli/malloc.ts says why the gateway
// wants them). Elsewhere (musl, macOS) both are no-ops that report false, so the addon builds
// wherever a C compiler does and the gateway asks nothing of the platform.
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// trim(): hands the free memory of every malloc arena back to the kernel (malloc_trim(0)).
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released == 1, &result);
  return result;
}

// tune(arenaMax, mmapThreshold): mallopt for the settings given as positive numbers; true when
// every one given was accepted.
static napi_value Tune(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t arena_max = 0, mmap_threshold = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc > 0) napi_get_value_int32(env, argv[0], &arena_max);
  if (argc > 1) napi_get_value_int32(env, argv[1], &mmap_threshold);
  int ok = 0;
#if defined(__GLIBC__)
  ok = 1;
  if (arena_max > 0) ok = mallopt(M_ARENA_MAX, arena_max) == 1 && ok;
  if (mmap_threshold > 0) ok = mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && ok;
#else
  (void)arena_max;
  (void)mmap_threshold;
#endif
  napi_value result;
  napi_get_boolean(env, ok == 1, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value trim, tune;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim);
  napi_set_named_property(env, exports, "trim", trim);
  napi_create_function(env, "tune", NAPI_AUTO_LENGTH, Tune, NULL, &tune);
  napi_set_named_property(env, exports, "tune", tune);
  return exports;
}
