#include "third_party/dnnl/one_thread_conv.h"

#include <omp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "oneapi/dnnl/dnnl.h"

namespace dnnl_one_thread {
namespace {

// The scratchpad a primitive needs for one execution (none: 0 bytes).
struct Scratchpad {
  dnnl_memory_desc_t md{};
  size_t bytes = 0;
};

// One convolution's primitives, made once per shape: making them compiles
// oneDNN's kernels (milliseconds), running them takes the call's time only.
// Executing one primitive from several threads at once is safe here since
// both are made with dnnl_scratchpad_mode_user and each call brings its own
// scratchpad.
struct ConvPrimitives {
  dnnl_primitive_t conv = nullptr;
  Scratchpad conv_scratchpad;
  // From the filter as HWIO to the layout the kernel chose (null when they
  // are the same).
  dnnl_primitive_t reorder = nullptr;
  Scratchpad reorder_scratchpad;
  dnnl_memory_desc_t filter_md{};  // the kernel's layout
  size_t filter_bytes = 0;
  bool ok = false;
};

Scratchpad ScratchpadOf(const_dnnl_primitive_desc_t pd) {
  Scratchpad s;
  if (const dnnl_memory_desc_t* md =
          dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)) {
    s.md = *md;
    s.bytes = dnnl_memory_desc_get_size(md);
  }
  return s;
}

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t>;

Key KeyOf(const ConvShape& s) {
  return Key{s.batch,       s.in_rows,   s.in_cols,  s.in_depth, s.filter_rows,
             s.filter_cols, s.out_depth, s.out_rows, s.out_cols, s.stride_rows,
             s.stride_cols, s.pad_top,   s.pad_left};
}

dnnl_engine_t Engine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success)
      return static_cast<dnnl_engine_t>(nullptr);
    return e;
  }();
  return engine;
}

// A stream per thread: calls on different threads never share one.
dnnl_stream_t Stream() {
  thread_local std::unique_ptr<dnnl_stream, dnnl_status_t (*)(dnnl_stream_t)> stream(
      [] {
        dnnl_stream_t s = nullptr;
        if (Engine() == nullptr ||
            dnnl_stream_create(&s, Engine(), dnnl_stream_default_flags) != dnnl_success) {
          return static_cast<dnnl_stream_t>(nullptr);
        }
        return s;
      }(),
      dnnl_stream_destroy);
  return stream.get();
}

struct Descs {
  dnnl_memory_desc_t src, hwio, any_filter, dst;
  dnnl_dims_t strides, pad_l, pad_r;
};

// Sizes past oneDNN's 32-bit dimensions are refused before any arithmetic
// on them (so the products below cannot overflow).
constexpr int64_t kMaxDim = int64_t{1} << 31;

bool InRange(int64_t v, int64_t lowest) { return v >= lowest && v < kMaxDim; }

bool MakeDescs(const ConvShape& s, Descs* d) {
  for (int64_t size : {s.batch, s.in_rows, s.in_cols, s.in_depth, s.filter_rows, s.filter_cols,
                       s.out_depth, s.out_rows, s.out_cols, s.stride_rows, s.stride_cols}) {
    if (!InRange(size, 1)) return false;
  }
  if (!InRange(s.pad_top, 0) || !InRange(s.pad_left, 0)) return false;
  const int64_t pad_bottom =
      (s.out_rows - 1) * s.stride_rows + s.filter_rows - s.in_rows - s.pad_top;
  const int64_t pad_right =
      (s.out_cols - 1) * s.stride_cols + s.filter_cols - s.in_cols - s.pad_left;
  if (s.batch <= 0 || s.out_rows <= 0 || s.out_cols <= 0 || s.in_depth <= 0 || s.out_depth <= 0 ||
      pad_bottom < 0 || pad_right < 0 || s.pad_top < 0 || s.pad_left < 0) {
    return false;
  }
  // oneDNN names dimensions N, C, H, W whatever the layout; the tag says how
  // they are stored.
  const dnnl_dims_t src = {s.batch, s.in_depth, s.in_rows, s.in_cols};
  const dnnl_dims_t filter = {s.out_depth, s.in_depth, s.filter_rows, s.filter_cols};
  const dnnl_dims_t dst = {s.batch, s.out_depth, s.out_rows, s.out_cols};
  if (dnnl_memory_desc_init_by_tag(&d->src, 4, src, dnnl_f32, dnnl_nhwc) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&d->hwio, 4, filter, dnnl_f32, dnnl_hwio) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&d->any_filter, 4, filter, dnnl_f32, dnnl_format_tag_any) !=
          dnnl_success ||
      dnnl_memory_desc_init_by_tag(&d->dst, 4, dst, dnnl_f32, dnnl_nhwc) != dnnl_success) {
    return false;
  }
  d->strides[0] = s.stride_rows;
  d->strides[1] = s.stride_cols;
  d->pad_l[0] = s.pad_top;
  d->pad_l[1] = s.pad_left;
  d->pad_r[0] = pad_bottom;
  d->pad_r[1] = pad_right;
  return true;
}

// The forward primitive descriptor.
dnnl_primitive_desc_t ForwardDesc(const Descs& d, const_dnnl_primitive_attr_t attr) {
  dnnl_convolution_desc_t cd;
  if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training, dnnl_convolution_direct,
                                         &d.src, &d.any_filter, nullptr, &d.dst, d.strides, d.pad_l,
                                         d.pad_r) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_primitive_desc_create(&pd, &cd, attr, Engine(), nullptr) != dnnl_success) return nullptr;
  return pd;
}

ConvPrimitives Make(const ConvShape& s) {
  ConvPrimitives p;
  Descs d;
  if (Engine() == nullptr || !MakeDescs(s, &d)) return p;
  dnnl_primitive_attr_t attr = nullptr;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return p;
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_primitive_desc_t pd = ForwardDesc(d, attr);
  if (pd != nullptr) {
    const dnnl_memory_desc_t* filter_md =
        dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    if (filter_md != nullptr && dnnl_primitive_create(&p.conv, pd) == dnnl_success) {
      p.filter_md = *filter_md;
      p.filter_bytes = dnnl_memory_desc_get_size(filter_md);
      p.conv_scratchpad = ScratchpadOf(pd);
      p.ok = true;
      if (dnnl_memory_desc_equal(filter_md, &d.hwio) == 0) {
        // HWIO into the kernel's layout.
        dnnl_primitive_desc_t rd = nullptr;
        p.ok = dnnl_reorder_primitive_desc_create(&rd, &d.hwio, Engine(), filter_md, Engine(),
                                                  attr) == dnnl_success &&
               dnnl_primitive_create(&p.reorder, rd) == dnnl_success;
        if (rd != nullptr) {
          p.reorder_scratchpad = ScratchpadOf(rd);
          dnnl_primitive_desc_destroy(rd);
        }
      }
    }
  }
  if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_attr_destroy(attr);
  return p;
}

// Made once per shape and kept for the process's life (a program has few
// convolution shapes).
const ConvPrimitives& Primitives(const ConvShape& s) {
  static std::mutex* mu = new std::mutex;
  static auto* made = new std::map<Key, ConvPrimitives>;
  std::lock_guard<std::mutex> lock(*mu);
  auto [it, inserted] = made->try_emplace(KeyOf(s));
  if (inserted) it->second = Make(s);
  return it->second;
}

// A memory object over the caller's buffer, destroyed with the scope.
class Memory {
 public:
  Memory(const dnnl_memory_desc_t& md, const void* data) {
    if (dnnl_memory_create(&m_, &md, Engine(), const_cast<void*>(data)) != dnnl_success) {
      m_ = nullptr;
    }
  }
  ~Memory() {
    if (m_ != nullptr) dnnl_memory_destroy(m_);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  dnnl_memory_t get() const { return m_; }

 private:
  dnnl_memory_t m_ = nullptr;
};

// Runs `fn` with oneDNN's OpenMP thread count at one (Debian builds it on
// OpenMP; without this a call would fan out over every core).
template <typename F>
bool OnOneThread(F&& fn) {
  const int omp_threads = omp_get_max_threads();
  if (omp_threads != 1) omp_set_num_threads(1);
  const bool ok = fn();
  if (omp_threads != 1) omp_set_num_threads(omp_threads);
  return ok;
}

// A buffer aligned as oneDNN's kernels prefer (64 bytes).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes) : storage_(bytes + 64) {}
  void* data() {
    const auto p = reinterpret_cast<uintptr_t>(storage_.data());
    return storage_.data() + ((64 - p % 64) % 64);
  }

 private:
  std::vector<char> storage_;
};

// Runs `p` with `args` and, when it needs one, a scratchpad of its own.
bool Execute(dnnl_primitive_t p, const Scratchpad& needs, std::vector<dnnl_exec_arg_t> args) {
  for (const dnnl_exec_arg_t& a : args) {
    if (a.memory == nullptr) return false;
  }
  std::unique_ptr<AlignedBuffer> scratchpad;
  std::unique_ptr<Memory> scratch;
  if (needs.bytes > 0) {
    scratchpad = std::make_unique<AlignedBuffer>(needs.bytes);
    scratch = std::make_unique<Memory>(needs.md, scratchpad->data());
    if (scratch->get() == nullptr) return false;
    args.push_back({DNNL_ARG_SCRATCHPAD, scratch->get()});
  }
  dnnl_stream_t stream = Stream();
  return stream != nullptr &&
         dnnl_primitive_execute(p, stream, static_cast<int>(args.size()), args.data()) ==
             dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
}

}  // namespace

bool ConvForward(const ConvShape& s, const float* input, const float* filter, float* output) {
  if (input == nullptr || filter == nullptr || output == nullptr) return false;
  const ConvPrimitives& p = Primitives(s);
  Descs d;
  if (!p.ok || !MakeDescs(s, &d)) return false;
  AlignedBuffer reordered(p.reorder != nullptr ? p.filter_bytes : 0);
  return OnOneThread([&] {
    Memory src(d.src, input), hwio(d.hwio, filter), dst(d.dst, output);
    Memory kernel_filter(p.filter_md, p.reorder != nullptr ? reordered.data() : filter);
    if (p.reorder != nullptr &&
        !Execute(p.reorder, p.reorder_scratchpad,
                 {{DNNL_ARG_FROM, hwio.get()}, {DNNL_ARG_TO, kernel_filter.get()}})) {
      return false;
    }
    return Execute(p.conv, p.conv_scratchpad,
                   {{DNNL_ARG_SRC, src.get()},
                    {DNNL_ARG_WEIGHTS, kernel_filter.get()},
                    {DNNL_ARG_DST, dst.get()}});
  });
}

}  // namespace dnnl_one_thread
