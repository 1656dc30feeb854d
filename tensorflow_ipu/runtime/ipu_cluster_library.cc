#include "tensorflow_ipu/runtime/ipu_cluster_library.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace {

// Deterministic bytes of a message (attr maps in key order), so that equal
// clusters give equal contents.
void AppendDeterministic(const google::protobuf::MessageLite& message,
                         std::string* out) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  absl::StrAppend(out, bytes.size(), ":", bytes);
}

// Everything that makes two clusters compile to the same executable.
std::string Contents(const compiler::ClusterIr& ir, int ipu_ordinal) {
  std::string out = absl::StrCat("ipu ", ipu_ordinal, ";");
  for (const compiler::ClusterOp& op : ir.ops) {
    AppendDeterministic(op.def, &out);
    for (const compiler::ValueRef& v : op.inputs) {
      absl::StrAppend(&out, v.op, ":", v.index, ",");
    }
    absl::StrAppend(&out, "^");
    for (int c : op.control_inputs) absl::StrAppend(&out, c, ",");
    absl::StrAppend(&out, "->");
    for (size_t k = 0; k < op.output_types.size(); ++k) {
      absl::StrAppend(&out, DataTypeString(op.output_types[k]),
                      op.output_shapes[k].DebugString(), ",");
    }
    absl::StrAppend(&out, " shard ", op.shard, ";");
  }
  absl::StrAppend(&out, "args");
  for (int a : ir.args) absl::StrAppend(&out, " ", a);
  absl::StrAppend(&out, ";results");
  for (const compiler::ValueRef& r : ir.results) {
    absl::StrAppend(&out, " ", r.op, ":", r.index);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<IpuClusterLibrary>> IpuClusterLibrary::Of(
    ResourceManager* resources) {
  if (resources == nullptr) {
    return absl::FailedPreconditionError(
        "IPU clusters run only inside a session (no resource manager)");
  }
  return resources->LookupOrCreate<IpuClusterLibrary>(
      "_ipu", "clusters", [] { return std::make_shared<IpuClusterLibrary>(); });
}

std::string IpuClusterLibrary::Add(compiler::ClusterIr ir, int ipu_ordinal) {
  // Constants are NodeDef attrs, so the contents cover them too.
  std::string contents = Contents(ir, ipu_ordinal);
  absl::MutexLock lock(&mu_);
  auto it = name_of_.find(contents);
  if (it != name_of_.end()) return it->second;
  std::string name = absl::StrCat("cluster_", clusters_.size());
  ir.name = name;
  auto def = std::make_shared<IpuClusterDef>();
  def->ir = std::move(ir);
  def->ipu_ordinal = ipu_ordinal;
  clusters_.emplace(name, std::move(def));
  name_of_.emplace(std::move(contents), name);
  return name;
}

absl::StatusOr<std::shared_ptr<const IpuClusterDef>> IpuClusterLibrary::Find(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = clusters_.find(name);
  if (it == clusters_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "This session has no IPU cluster named '", name, "'"));
  }
  return it->second;
}

}  // namespace tensorflow_ipu
