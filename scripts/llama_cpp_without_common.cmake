# Read by llama.cpp's project() when scripts/install.sh builds llama-cpp-python (CMake's
# CMAKE_PROJECT_llama.cpp_INCLUDE hook). llama-cpp-python forces llama.cpp's common library on,
# though the Python package never loads it: it is the command-line tools' and the HTTP server's
# library (cpp-httplib, the chat-template parsers, a JSON library), about a third of the build.
# A normal variable set here shadows that cache entry inside llama.cpp's directory, so neither
# the library nor its install rule is made.
set(LLAMA_BUILD_COMMON OFF)
