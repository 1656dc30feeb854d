// MD5 of bytes, as `md5sum` prints it (32 lowercase hex digits): the
// checksum conversion_params.json records for the converted saved_model.pb,
// as the original does. Computed by OpenSSL's libcrypto.
//
//   Md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72"
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MD5SUM_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MD5SUM_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// Internal error if libcrypto fails (it does not for MD5 of memory).
absl::StatusOr<std::string> Md5Hex(absl::string_view data);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MD5SUM_H_
