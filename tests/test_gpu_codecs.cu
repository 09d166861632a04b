/* The GPU's codec table (gpu/gpu_codecs.h): the GPU takes the chunks of the codecs it has kernels
 * for (zfp, stored, bounded: its decoder alone, test_gpu_bounded.cu; lossless, but not a lossless
 * mode its kernels lack) and refuses every other codec the library reads or writes, here the raw
 * codec of the tests (tests/codec_raw/, whose codec table this program links in place of the
 * library's), with PARZ_ERR_UNSUPPORTED and a message naming it, which the plugin turns into its
 * CPU fallback. The refusals come before any work: the device API and the filter path refuse
 * with a context no device made, where the first CUDA call would fail (PARZ_ERR_DEVICE), so
 * they run without a GPU; with one, the same calls on a real context refuse too, a batch
 * holding a raw chunk writes nothing into its zfp chunk's destination, and the zfp and stored
 * chunks around it still decode. */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs.h"
#include "gpu_codecs.h"
#include "raw_codec.h"

#define NY 19
#define NX 23

static float values[NY * NX];

static parz_array array2d(void) {
  parz_array a = {};
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = NY, a.shape[1] = NX;
  return a;
}

/* The chunk of `values` that codec `id` writes (stored: one the rule stores), parsed into v. */
static unsigned char* encode(unsigned id, size_t* bytes, parz_chunk_view* v) {
  parz_chunk_config cfg;
  parz_error err;
  const parz_array a = array2d();
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.checksum = PARZ_CHECKSUM_ON;
  if (id == PARZ_CODEC_STORED) { /* 32 bits a value and a table: the stored chunk is smaller */
    CHECK(parz_params_rate(&cfg.params, 32.0, a.type, a.dims, NULL, &err) == PARZ_OK);
    cfg.stored = PARZ_STORED_WHEN_SMALLER;
  } else {
    cfg.codec = id;
    cfg.table = PARZ_TABLE_HYBRID;
    cfg.segment_blocks = 4;
    cfg.partition_segments = 4;
  }
  const size_t bound = parz_chunk_bound(&a, &cfg);
  unsigned char* c = (unsigned char*)malloc(bound ? bound : 1);
  *bytes = 0;
  CHECK(c && bound && parz_chunk_encode(&a, values, &cfg, c, bound, bytes, &err) == PARZ_OK,
        ": encoding codec %u: %s", id, err.message);
  CHECK(*bytes && parz_chunk_parse(c, *bytes, v, &err) == PARZ_OK && v->codec == id,
        ": parsing codec %u's chunk (%s)", id, err.message);
  return c;
}

/* rc is PARZ_ERR_UNSUPPORTED with a message naming the raw codec (and `also`). */
static void refused_raw(int rc, const parz_error& err, const char* also, const char* what) {
  CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(err.message, "codec 200 (raw)") &&
            strstr(err.message, also),
        ": %s: status %d, \"%s\"", what, rc, err.message);
}

/* The table and its refusals, on the host. */
static void table_checks(const parz_chunk_view* raw, const parz_chunk_view* zfp) {
  const parz_gpu_codec* c = NULL;
  parz_error err = {0, ""};
  CHECK(parz_gpu_codec_find(PARZ_CODEC_ZFP) == &parz_gpu_codec_zfp &&
        parz_gpu_codec_find(PARZ_CODEC_STORED) == &parz_gpu_codec_stored &&
        parz_gpu_codec_find(PARZ_CODEC_RAW) == NULL && parz_gpu_codec_find(0) == NULL);
  CHECK(parz_gpu_codec_zfp.id == PARZ_CODEC_ZFP && parz_gpu_codec_stored.id == PARZ_CODEC_STORED);
  /* zfp batches and decodes in slices and encodes; stored is one copy, never named to write */
  CHECK(parz_gpu_codec_zfp.enqueue_run && parz_gpu_codec_zfp.run_bytes &&
        parz_gpu_codec_zfp.enqueue_segments && parz_gpu_codec_zfp.launch_blocks);
  CHECK(!parz_gpu_codec_stored.enqueue_run && !parz_gpu_codec_stored.enqueue_segments &&
        !parz_gpu_codec_stored.launch_blocks);
  /* bounded: a batch's chunks share the segment launch, their arguments in the batch's buffers
   * (an array of them from the run's slot on: the slots keep 8-byte alignment), decoded whole
   * (filter path included) in its scratch; encoded whole (encode_chunks), no block kernel */
  CHECK(parz_gpu_codec_find(PARZ_CODEC_BOUNDED) == &parz_gpu_codec_bounded &&
        parz_gpu_codec_bounded.id == PARZ_CODEC_BOUNDED);
  CHECK(parz_gpu_codec_bounded.run_bytes > 0 && parz_gpu_codec_bounded.run_bytes % 8 == 0 &&
            parz_gpu_codec_run_bytes() >= parz_gpu_codec_bounded.run_bytes &&
            parz_gpu_codec_run_bytes() % 8 == 0,
        ": bounded run_bytes %zu, the table's %zu", parz_gpu_codec_bounded.run_bytes,
        parz_gpu_codec_run_bytes());
  CHECK(parz_gpu_codec_bounded.enqueue_chunk && parz_gpu_codec_bounded.enqueue_run &&
        parz_gpu_codec_bounded.enqueue_segments && parz_gpu_codec_bounded.whole &&
        parz_gpu_codec_bounded.scratch_bytes && !parz_gpu_codec_bounded.launch_blocks &&
        parz_gpu_codec_bounded.encode_chunks);
  CHECK(!parz_gpu_codec_zfp.encode_chunks && !parz_gpu_codec_stored.encode_chunks &&
        parz_gpu_codec_lossless.encode_chunks);
  CHECK(!parz_gpu_codec_zfp.whole && !parz_gpu_codec_zfp.scratch_bytes &&
        !parz_gpu_codec_stored.scratch_bytes);
  /* lossless decodes a chunk at a time, in runs and in slices, its dictionary in its scratch,
   * and encodes whole chunks (no block kernel); of its modes, every predictor and transform the library reads is
   * taken, a later one refused (a view is enough: nothing is read) */
  CHECK(parz_gpu_codec_find(PARZ_CODEC_LOSSLESS) == &parz_gpu_codec_lossless &&
        parz_gpu_codec_lossless.enqueue_segments && parz_gpu_codec_lossless.enqueue_run &&
        parz_gpu_codec_lossless.run_bytes && parz_gpu_codec_lossless.scratch_bytes &&
        !parz_gpu_codec_lossless.launch_blocks && parz_gpu_codec_lossless.decodes);
  {
    parz_chunk_view ll;
    memset(&ll, 0, sizeof ll);
    ll.codec = PARZ_CODEC_LOSSLESS;
    for (unsigned p = 0; p < 4; p++) { /* Lorenzo, stack, Holt's, rows (FORMAT.md, "Lossless chunks") */
      ll.codec_params[1] = (unsigned char)p;
      CHECK(parz_gpu_codec_decoder(&ll, 0, &c, &err) == PARZ_OK && c == &parz_gpu_codec_lossless,
            ": lossless, predictor %u: %s", p, err.message);
    }
    ll.codec_params[1] = 4;
    CHECK(parz_gpu_codec_decoder(&ll, 4, &c, &err) == PARZ_ERR_UNSUPPORTED && c == NULL &&
              strstr(err.message, "chunk 4: lossless predictor 4"),
          ": lossless, predictor 4: \"%s\"", err.message);
    ll.codec_params[1] = 0;
    ll.codec_params[0] = 128; /* the value dictionary */
    CHECK(parz_gpu_codec_decoder(&ll, 0, &c, &err) == PARZ_OK && c == &parz_gpu_codec_lossless,
          ": lossless, transform 128: %s", err.message);
    ll.codec_params[0] = 129;
    CHECK(parz_gpu_codec_decoder(&ll, 5, &c, &err) == PARZ_ERR_UNSUPPORTED && c == NULL &&
              strstr(err.message, "chunk 5: lossless transform 129"),
          ": lossless, transform 129: \"%s\"", err.message);
  }
  CHECK(parz_gpu_codec_run_bytes() ==
        PARZ_MAX(PARZ_MAX(parz_gpu_codec_zfp.run_bytes, parz_gpu_codec_stored.run_bytes),
                 PARZ_MAX(parz_gpu_codec_bounded.run_bytes, parz_gpu_codec_lossless.run_bytes)));
  CHECK(parz_gpu_codec_decoder(zfp, 0, &c, &err) == PARZ_OK && c == &parz_gpu_codec_zfp);
  refused_raw(parz_gpu_codec_decoder(raw, 3, &c, &err), err, "chunk 3", "decoder of a raw chunk");
  CHECK(c == NULL);
  {
    const parz_array a = array2d();
    parz_chunk_config cfg;
    parz_chunk_view v;
    memset(&cfg, 0, sizeof cfg);
    parz_params_reversible(&cfg.params);
    CHECK(parz_gpu_codec_encoder(&a, &cfg, &v, &c, &err) == PARZ_OK && c == &parz_gpu_codec_zfp &&
              v.codec == PARZ_CODEC_ZFP,
          ": zfp (codec 0 in the configuration): %s", err.message);
    cfg.codec = PARZ_CODEC_RAW;
    refused_raw(parz_gpu_codec_encoder(&a, &cfg, &v, &c, &err), err, "GPU encode",
                "encoder of the raw codec");
    CHECK(c == NULL);
    /* a codec no encoder writes by name is the configuration's error, not the GPU's */
    cfg.codec = PARZ_CODEC_STORED;
    CHECK(parz_gpu_codec_encoder(&a, &cfg, &v, &c, &err) == PARZ_ERR_PARAM &&
              strstr(err.message, "codec 2 (stored)"),
          ": encoder of the stored codec: %s", err.message);
  }
}

/* The device API's and the filter path's refusals of a raw chunk (rawc, raw_bytes; view raw)
 * and of the raw codec named to the encoder, on ctx; zfp is a chunk beside it in a batch. With
 * d_raw/d_zfp/d_dst NULL, aligned host addresses stand in for device memory (a context no
 * device made: nothing may be touched). */
static void api_refusals(parz_gpu_context* ctx, const unsigned char* rawc, size_t raw_bytes,
                         const parz_chunk_view* raw, const parz_chunk_view* zfp, void* d_raw,
                         void* d_zfp, void* d_dst, void* d_dst2, const char* where) {
  static uint64_t stand_in[4];
  parz_error err = {0, ""};
  char what[96];
  float host_out[NY * NX];
  void* src_raw = d_raw ? d_raw : stand_in;
  void* dst = d_dst ? d_dst : stand_in;
  size_t failed = 7, written = 9;

  snprintf(what, sizeof what, "%s: parz_gpu_decode_device", where);
  refused_raw(parz_gpu_decode_device(ctx, raw, src_raw, dst, NULL, &err), err, "GPU decoder", what);

  /* a batch holding one is refused whole */
  {
    const parz_chunk_view views[2] = {*zfp, *raw};
    const void* chunks[2] = {d_zfp ? d_zfp : stand_in, src_raw};
    void* dsts[2] = {d_dst2 ? d_dst2 : stand_in, dst};
    snprintf(what, sizeof what, "%s: parz_gpu_decode_device_batch", where);
    refused_raw(parz_gpu_decode_device_batch(ctx, 2, views, chunks, dsts, NULL, &failed, &err), err,
                "chunk 1", what);
  }

  snprintf(what, sizeof what, "%s: parz_gpu_chunk_decode", where);
  refused_raw(parz_gpu_chunk_decode(ctx, rawc, raw_bytes, host_out, sizeof host_out, &err), err,
              "GPU decoder", what);

  /* the raw codec named to the GPU encoder: refused, nothing written */
  {
    const parz_array a = array2d();
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    parz_params_reversible(&cfg.params);
    cfg.codec = PARZ_CODEC_RAW;
    snprintf(what, sizeof what, "%s: parz_gpu_encode_device", where);
    refused_raw(
        parz_gpu_encode_device(ctx, &a, src_raw, &cfg, dst, sizeof stand_in, &written, NULL, &err),
        err, "GPU encode", what);
    snprintf(what, sizeof what, "%s: parz_gpu_chunk_encode", where);
    refused_raw(parz_gpu_chunk_encode(ctx, &a, values, &cfg, host_out, sizeof host_out, NULL, NULL,
                                      &written, &err),
                err, "GPU encode", what);
  }
}

int main(void) {
  size_t raw_bytes, zfp_bytes, stored_bytes, i;
  parz_chunk_view raw, zfp, stored;
  for (i = 0; i < NY * NX; i++)
    values[i] = (float)(i % 97) * 0.25f - 7.0f;
  unsigned char* rawc = encode(PARZ_CODEC_RAW, &raw_bytes, &raw);
  unsigned char* zfpc = encode(PARZ_CODEC_ZFP, &zfp_bytes, &zfp);
  unsigned char* storedc = encode(PARZ_CODEC_STORED, &stored_bytes, &stored);
  if (failures)
    return test_finish("gpu_codecs");
  table_checks(&raw, &zfp);

  /* a context no device made (every field zero): the first CUDA call on it would fail */
  {
    parz_gpu_context* none = (parz_gpu_context*)calloc(1, sizeof(parz_gpu_context));
    none->device = -1;
    api_refusals(none, rawc, raw_bytes, &raw, &zfp, NULL, NULL, NULL, NULL, "no device");
    free(none);
  }

  if (!parz_gpu_available()) {
    printf("gpu_codecs: no CUDA device: the refusals on a GPU are not run\n");
  } else {
    parz_gpu_context* ctx = NULL;
    parz_error err = {0, ""};
    const size_t raw_size = sizeof values;
    void *d_raw = NULL, *d_zfp = NULL, *d_stored = NULL, *d_dst = NULL, *d_dst2 = NULL;
    CHECK(parz_gpu_context_create(&ctx, 0, &err) == PARZ_OK, ": %s", err.message);
    CHECK(cudaMalloc(&d_raw, raw_bytes) == cudaSuccess &&
          cudaMalloc(&d_zfp, zfp_bytes) == cudaSuccess &&
          cudaMalloc(&d_stored, stored_bytes) == cudaSuccess &&
          cudaMalloc(&d_dst, raw_size) == cudaSuccess &&
          cudaMalloc(&d_dst2, raw_size) == cudaSuccess);
    if (ctx && !failures) {
      cudaMemcpy(d_raw, rawc, raw_bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(d_zfp, zfpc, zfp_bytes, cudaMemcpyHostToDevice);
      cudaMemcpy(d_stored, storedc, stored_bytes, cudaMemcpyHostToDevice);
      cudaMemset(d_dst, 0x5a, raw_size);
      cudaMemset(d_dst2, 0x5a, raw_size);
      api_refusals(ctx, rawc, raw_bytes, &raw, &zfp, d_raw, d_zfp, d_dst, d_dst2, "GPU");
      /* the refused batch wrote nothing: both destinations hold their pattern */
      {
        static unsigned char got[sizeof values], pattern[sizeof values];
        memset(pattern, 0x5a, sizeof pattern);
        CHECK(cudaMemcpy(got, d_dst2, raw_size, cudaMemcpyDeviceToHost) == cudaSuccess &&
                  !memcmp(got, pattern, raw_size),
              ": the refused batch's zfp chunk was decoded");
        CHECK(cudaMemcpy(got, d_dst, raw_size, cudaMemcpyDeviceToHost) == cudaSuccess &&
                  !memcmp(got, pattern, raw_size),
              ": the refused batch's raw chunk was written");
      }
      /* the codecs with kernels decode, in one batch, as the serial decoder does */
      {
        const parz_chunk_view views[2] = {zfp, stored};
        const void* chunks[2] = {d_zfp, d_stored};
        void* dsts[2] = {d_dst, d_dst2};
        static float want[2][NY * NX], got[NY * NX];
        CHECK(parz_chunk_decode(zfpc, zfp_bytes, want[0], sizeof want[0], &err) == PARZ_OK &&
              parz_chunk_decode(storedc, stored_bytes, want[1], sizeof want[1], &err) == PARZ_OK);
        CHECK(
            parz_gpu_decode_device_batch(ctx, 2, views, chunks, dsts, NULL, NULL, &err) == PARZ_OK,
            ": zfp and stored in one batch: %s", err.message);
        for (i = 0; i < 2; i++)
          CHECK(cudaMemcpy(got, dsts[i], raw_size, cudaMemcpyDeviceToHost) == cudaSuccess &&
                    !memcmp(got, want[i], raw_size),
                ": batch chunk %zu (codec %u) differs from the serial decoder", i, views[i].codec);
      }
    }
    cudaFree(d_raw);
    cudaFree(d_zfp);
    cudaFree(d_stored);
    cudaFree(d_dst);
    cudaFree(d_dst2);
    parz_gpu_context_free(ctx);
  }
  free(rawc);
  free(zfpc);
  free(storedc);
  return test_finish("gpu_codecs");
}
