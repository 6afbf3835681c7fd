#include "widget.hpp"
#include <vector>

namespace ui {

class Widget : public Base {
public:
    void draw(Canvas &c) const;
    int size() const { return items_.size(); }
private:
    std::vector<Item> items_;
};

void
Widget::draw(Canvas &c) const
{
    // paint("nothing")
    c.paint(render_items(items_));
}

}
