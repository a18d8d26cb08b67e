// Heat maps of the bench matrices through gnuplot: a data file per matrix and
// a script in a scratch directory, then `gnuplot script`.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tier/bench/bench.hpp"

extern char** environ;

namespace tier::bench {

namespace {

namespace fs = std::filesystem;

std::optional<fs::path> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/tierctl-plot-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// One line per cell: column index, row index, value (NaN for holes).
void write_matrix(const fs::path& file, const Matrix& matrix) {
  std::ofstream out(file);
  for (std::size_t r = 0; r < matrix.size(); ++r) {
    for (std::size_t c = 0; c < matrix[r].size(); ++c) {
      out << c << " " << r << " ";
      if (matrix[r][c]) {
        out << *matrix[r][c];
      } else {
        out << "NaN";
      }
      out << "\n";
    }
  }
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string tics(const std::vector<unsigned>& ids) {
  std::string out = "(";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out += (i == 0 ? "\"" : ", \"") + std::to_string(ids[i]) + "\" " + std::to_string(i);
  }
  return out + ")";
}

std::string quoted(const fs::path& path) {
  std::string out = "'";
  for (char c : path.string()) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void write_plot(const BenchReport& report, const std::string& png_path) {
  auto gnuplot = find_in_path("gnuplot");
  if (!gnuplot) {
    throw PlotError(
        "--plot needs gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)");
  }
  ScratchDir dir;
  struct Panel {
    const char* file;
    const char* title;
    std::function<std::optional<double>(const PairResult&)> figure;
  };
  const std::vector<Panel> panels{
      {"latency.dat", "idle latency (ns per load)",
       [](const PairResult& p) { return p.latency_ns; }},
      {"read.dat", "read bandwidth (MB/s)", [](const PairResult& p) { return p.read_mbps; }},
      {"write.dat", "write bandwidth (MB/s)", [](const PairResult& p) { return p.write_mbps; }},
      {"copy.dat", "copy bandwidth (MB/s)", [](const PairResult& p) { return p.copy_mbps; }},
  };
  std::ostringstream script;
  const fs::path output = fs::absolute(png_path);
  script << "set terminal png size 1200,1000\n"
         << "set output " << quoted(output) << "\n"
         << "set multiplot layout 2,2 title 'tierctl bench (rows: initiator, columns: target)'\n"
         << "set xlabel 'target node'\nset ylabel 'initiator node'\n"
         << "set xtics " << tics(report.targets) << "\n"
         << "set ytics " << tics(report.initiators) << "\n"
         << "set xrange [-0.5:" << report.targets.size() - 0.5 << "]\n"
         << "set yrange [-0.5:" << report.initiators.size() - 0.5 << "] reverse\n"
         << "set palette defined (0 '#2166ac', 1 '#f7f7f7', 2 '#b2182b')\n"
         << "set style fill solid 1.0 noborder\nunset key\n";
  for (const auto& panel : panels) {
    write_matrix(dir.path() / panel.file,
                 assemble_matrix(report.initiators, report.targets, report.pairs, panel.figure));
    const std::string data = quoted(dir.path() / panel.file);
    script << "set title '" << panel.title << "'\n"
           << "plot " << data << " using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, " << data
           << " using 1:2:(sprintf('%.0f', $3)) with labels\n";
  }
  script << "unset multiplot\n";
  const fs::path script_path = dir.path() / "bench.gp";
  std::ofstream(script_path) << script.str();

  const fs::path err_path = dir.path() / "gnuplot.err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string prog = gnuplot->string();
  std::string arg = script_path.string();
  char* argv[] = {prog.data(), arg.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, prog.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run " + prog + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream err(err_path);
    std::ostringstream text;
    text << err.rdbuf();
    throw std::runtime_error("gnuplot failed: " + text.str());
  }
}

}  // namespace tier::bench
