#include "tools/ipu_saved_model_cli/convert/md5sum.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::string> Md5Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr) != 1) {
    return absl::InternalError("computing an MD5 digest with libcrypto failed");
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), size));
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
