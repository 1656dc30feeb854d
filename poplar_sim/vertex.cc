#include "poplar_sim/vertex.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace poplar_sim {

FieldBase::FieldBase(Vertex* owner, const char* name, FieldDirection direction,
                     Type type, bool isVector)
    : owner_(owner), name_(name), direction_(direction), type_(type), isVector_(isVector) {
  owner->fields_.push_back(this);
}

void* FieldBase::outOfRange(size_t index) const {
  if (!owner_->outOfRange_.has_value()) {
    owner_->outOfRange_ = Vertex::OutOfRangeAccess{name_, index, size_};
  }
  std::fill(std::begin(scratch_), std::end(scratch_), 0);
  return scratch_;
}

FieldBase* Vertex::field(const std::string& name) const {
  for (FieldBase* f : fields_) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

struct VertexRegistry::Impl {
  mutable absl::Mutex mu;
  std::map<std::string, VertexFactory> factories;
};

VertexRegistry& VertexRegistry::global() {
  static VertexRegistry* r = new VertexRegistry();
  return *r;
}

VertexRegistry::Impl* VertexRegistry::impl() {
  static Impl* i = new Impl();
  return i;
}
const VertexRegistry::Impl* VertexRegistry::impl() const {
  return const_cast<VertexRegistry*>(this)->impl();
}

absl::Status VertexRegistry::add(const std::string& name,
                                 VertexFactory factory) {
  Impl* i = impl();
  absl::MutexLock lock(&i->mu);
  if (!i->factories.emplace(name, std::move(factory)).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "Vertex type '", name, "' is already registered; choose another name"));
  }
  return absl::OkStatus();
}

const VertexFactory* VertexRegistry::find(const std::string& name) const {
  const Impl* i = impl();
  absl::MutexLock lock(&i->mu);
  auto it = i->factories.find(name);
  // std::map nodes are stable, so the pointer outlives the lock.
  return it == i->factories.end() ? nullptr : &it->second;
}

std::vector<std::string> VertexRegistry::names() const {
  const Impl* i = impl();
  absl::MutexLock lock(&i->mu);
  std::vector<std::string> out;
  for (const auto& [name, f] : i->factories) out.push_back(name);
  return out;
}

bool registerVertexAtStartup(const char* name, VertexFactory factory) {
  absl::Status s = VertexRegistry::global().add(name, std::move(factory));
  if (!s.ok()) {
    std::fprintf(stderr, "poplar_sim: %s\n", std::string(s.message()).c_str());
    std::abort();
  }
  return true;
}

}  // namespace poplar_sim
